import Foundation
import Testing
import TransduceTestSupport

@testable import TransduceTrace

/// The streamed OTLP export (``OTLPStream``: two or three passes, never the whole trace) writes
/// exactly the spans of the export that holds the trace (``OTLPTraceExport``): the same spans,
/// ids, times, events, links and statuses, in the same batches' encodings, whatever it had to
/// leave for its third pass.
@Suite struct OTLPStreamTests {
    /// Every span of a set of bodies, each as its canonical JSON, sorted: the order of requests
    /// and resources set aside.
    static func spans(_ bodies: [[UInt8]]) throws -> [String] {
        var spans: [String] = []
        for body in bodies {
            let data = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            for rs in data["resourceSpans"] as? [[String: Any]] ?? [] {
                let resource = try JSONSerialization.data(withJSONObject: rs["resource"] ?? [:], options: [.sortedKeys])
                for ss in rs["scopeSpans"] as? [[String: Any]] ?? [] {
                    for span in ss["spans"] as? [[String: Any]] ?? [] {
                        let text = try JSONSerialization.data(withJSONObject: span, options: [.sortedKeys])
                        spans.append(String(decoding: resource + text, as: UTF8.self))
                    }
                }
            }
        }
        return spans.sorted()
    }

    /// The streamed export of `events`, pass by pass as trace-view runs it: its bodies, the
    /// requests the first round missed, and how many rounds it took.
    static func streamed(
        _ events: [TraceEvent], maxKept: Int, maxMissed: Int = ResumeBreakdowns.defaultMaxMissed,
        maxRuntimes: Int = BreakdownPasses.defaultMaxRuntimes, from first: Int = 0
    ) -> (bodies: [[UInt8]], missed: Int, rounds: Int, groups: Int) {
        var census = OTLPStream.Census()
        for e in events { census.consume(e) }
        var bodies: [[UInt8]] = []
        var positions: [Range<Int>] = []
        var stream = OTLPStream(
            census: census, hosts: [:], wallClockOffset: 1_000, encoding: .json, from: first, maxKept: maxKept,
            maxMissed: maxMissed, maxRuntimes: maxRuntimes
        ) { body, requests in
            bodies.append(body)
            positions.append(requests)
            return true
        }
        var missed = 0
        while stream.beginPass() {
            for e in events where !stream.passIsDone { stream.consume(e) }
            if stream.passes.all == 1 { missed = stream.missed }
            #expect(stream.missed <= maxMissed)
        }
        stream.finish()
        let rounds = stream.passes.rounds
        // The batches' positions follow on from `first`, without gaps.
        #expect(positions.first?.lowerBound ?? first == first)
        #expect(zip(positions, positions.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        return (bodies, missed, rounds, stream.groups)
    }

    /// The runtimes' names hold each distinct pair once and give every runtime its own back:
    /// with a few pairs over many runtimes, with a pair each (the table grown many times), with
    /// pairs whose texts split the same bytes differently, and with a runtime forgotten.
    @Test func runtimeNamesHoldEachPairOnce() {
        var names = RuntimeNames()
        let shared = [("Counter", "BaseRuntime"), ("Session", "BaseRuntime"), ("Counter", "EffectObservable")]
        for r in 0..<10_000 { names[RuntimeKey(rawValue: UInt64(r))] = shared[r % 3] }
        #expect(names.distinctPairs == 3)
        for r in 0..<5_000 { names[RuntimeKey(rawValue: UInt64(100_000 + r))] = ("Connection\(r)", "BaseRuntime") }
        names[RuntimeKey(rawValue: 200_000)] = ("ab", "c")
        names[RuntimeKey(rawValue: 200_001)] = ("a", "bc")
        #expect(names.distinctPairs == 3 + 5_000 + 2)
        for r in 0..<10_000 {
            let got = names[RuntimeKey(rawValue: UInt64(r))]
            #expect(got?.name == shared[r % 3].0 && got?.host == shared[r % 3].1)
        }
        for r in 0..<5_000 { #expect(names[RuntimeKey(rawValue: UInt64(100_000 + r))]?.name == "Connection\(r)") }
        #expect(names[RuntimeKey(rawValue: 200_000)]?.name == "ab" && names[RuntimeKey(rawValue: 200_001)]?.name == "a")
        names[RuntimeKey(rawValue: 7)] = nil
        #expect(names[RuntimeKey(rawValue: 7)] == nil && names[RuntimeKey(rawValue: 8)]?.name == shared[2].0)
        #expect(names.distinctPairs == 5_005)
    }

    /// With a bound on the requests a pass names (`maxMissed`) far below those it misses, it
    /// takes rounds, and loses none.
    @Test(arguments: [(500_000, ResumeBreakdowns.defaultMaxMissed), (64, ResumeBreakdowns.defaultMaxMissed), (64, 40)])
    func theStreamWritesWhatTheWholeTraceDoes(_ maxKept: Int, _ maxMissed: Int) async throws {
        let events = try await SharedTraces.mixed.value
        let expected = Self.held(events)
        let (bodies, missed, rounds, groups) = Self.streamed(events, maxKept: maxKept, maxMissed: maxMissed)
        // 64 events kept: most requests wait for a third pass; 40 named a pass: a round for each.
        #expect(maxKept > 1_000 ? missed == 0 : missed > 0 && missed <= maxMissed, "\(missed) missed")
        #expect(groups == 1)
        #expect(maxMissed < 100 ? rounds > 3 : rounds == 1, "\(rounds) rounds")
        let streamed = try Self.spans(bodies)
        let held = try Self.spans(expected)
        #expect(streamed.count == held.count && streamed.count > 1_000)
        // Links to other requests among them (joined, replaced and carried tasks'): a link
        // points only at a request that resumed, which the stream learns from the census.
        #expect(held.count { $0.contains("transduce.link") } >= 8, "\(held.count { $0.contains("transduce.link") }) links")
        let differing = zip(streamed, held).filter { $0 != $1 }
        #expect(differing.isEmpty, "\(differing.count) spans differ, first: \(differing.first.map { "\($0.0)\n\($0.1)" } ?? "")")
        #expect(bodies.count == expected.count)
    }

    /// The export of the trace held whole (``OTLPTraceExport``), its bodies.
    static func held(_ events: [TraceEvent]) -> [[UInt8]] {
        let whole = OTLPTraceExport(index: TraceIndex(events), hosts: [:], wallClockOffset: 1_000)
        var expected: [[UInt8]] = []
        whole.write(.json) { body, _ in
            expected.append(body)
            return true
        }
        return expected
    }

    /// With more runtimes with requests waiting at once than a pass follows (`maxRuntimes`: a
    /// runtime per connection, 80 of them at once), the passes go group by group of runtimes,
    /// each with its rounds and third passes: the same spans as the whole trace's, none twice,
    /// and the same order every run (`from` resumes it).
    @Test func manyRuntimesAtOnceGoGroupByGroup() throws {
        let events = try StreamingPartsTests.manyRuntimes(events: 10_000, runtimes: 80)
        let held = try Self.spans(Self.held(events))
        #expect(held.count > 5_000)
        for (maxKept, maxMissed) in [(500_000, ResumeBreakdowns.defaultMaxMissed), (200, 20)] {
            let (bodies, missed, rounds, groups) = Self.streamed(events, maxKept: maxKept, maxMissed: maxMissed, maxRuntimes: 20)
            #expect(groups >= 3, "\(groups) groups")
            #expect(maxMissed < 1_000 ? missed > 0 && rounds > groups : rounds == groups, "\(missed) missed, \(rounds) rounds")
            let streamed = try Self.spans(bodies)
            #expect(streamed.count == held.count)
            // (Compared apart: a failed `#expect` of two arrays this long diffs them for minutes.)
            let same = streamed == held
            #expect(same, "\(zip(streamed, held).filter { $0 != $1 }.count) spans differ")
        }
        let all = Self.streamed(events, maxKept: 200, maxMissed: 20, maxRuntimes: 20).bodies
        let rest = Self.streamed(
            events, maxKept: 200, maxMissed: 20, maxRuntimes: 20, from: 3 * OTLPTraceExport.requestsPerLine)
        #expect(rest.bodies.count == all.count - 3)
        let sameRest = try Self.spans(rest.bodies) == Self.spans(Array(all.dropFirst(3)))
        #expect(sameRest)
    }

    /// `from` skips the requests before it: the rest are the spans of the whole export's rest.
    @Test func aResumedStreamSendsTheRest() async throws {
        let events = try await SharedTraces.mixed.value
        let all = Self.streamed(events, maxKept: 500_000).bodies
        let rest = Self.streamed(events, maxKept: 500_000, from: 2 * OTLPTraceExport.requestsPerLine).bodies
        #expect(rest.count == all.count - 2)
        #expect(try Self.spans(rest) == Self.spans(Array(all.dropFirst(2))))
        // In rounds too: the order is the same every time.
        let rounds = Self.streamed(events, maxKept: 64, maxMissed: 40).bodies
        let from = 2 * OTLPTraceExport.requestsPerLine
        let restOfRounds = Self.streamed(events, maxKept: 64, maxMissed: 40, from: from).bodies
        #expect(restOfRounds.count == rounds.count - 2)
        #expect(try Self.spans(restOfRounds) == Self.spans(Array(rounds.dropFirst(2))))
    }
}
