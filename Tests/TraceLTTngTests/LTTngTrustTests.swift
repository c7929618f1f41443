import Foundation
import Testing
import TraceTooling
import TransduceTestSupport
import TransduceTraceCTF

@testable import TransduceTrace

extension LTTngTests {
    /// LTTng at its edges: an app that only depends on this package, several processes in one
    /// trace, `record` keeping to its command, sessions cleaned up after a killed trace-view, LTTng's
    /// own losses, labels as babeltrace2 shows them, damaged CTF input.
    ///
    /// Nested in ``LTTngTests`` so that its `.serialized` covers both: sessions of one suite must not
    /// meet the other's (a `record` destroys every stale session it finds, one test plants one).
    @Suite struct Trust {
        static let packageRoot = Repository.root

        /// The dependent app's build directory, one per set of source files of this package: an
        /// incremental SwiftPM build of a path dependency was seen to compile a stale file list
        /// after files were added or moved (new contents, old names), so a new list gets a fresh
        /// directory, and the old ones are removed.
        static func dependentAppScratch() throws -> String {
            let sources = Self.packageRoot + "/Sources"
            let files = (FileManager.default.enumerator(atPath: sources)?.allObjects as? [String] ?? []).sorted()
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in files.joined(separator: "\n").utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            let name = "dependent-app-" + String(hash, radix: 16)
            let build = Self.packageRoot + "/.build"
            for old in (try? FileManager.default.contentsOfDirectory(atPath: build)) ?? []
            where old.hasPrefix("dependent-app") && old != name {
                try? FileManager.default.removeItem(atPath: build + "/" + old)
            }
            return build + "/" + name
        }

        /// A package depending on this one by path (Tests/DependentApp), built as a user would build
        /// theirs, records to LTTng under `trace-view record` — no extra product, no extra step.
        @Test(.enabled(if: LTTngTools.available)) func dependentAppRecordsToLTTng() async throws {
            let scratch = try Self.dependentAppScratch()
            let swift = try #require(Subprocess.which("swift"))
            let build = try Subprocess.run(
                swift, ["build", "--package-path", Self.packageRoot + "/Tests/DependentApp", "--scratch-path", scratch],
                output: .capture, timeout: 900)
            #expect(build.status == 0, "\(build.output.suffix(2000))")
            let app = scratch + "/debug/DependentApp"
            let dir = TemporaryDirectory()
            let ring = dir.file("ring.tdtrace")
            let ctf = dir.file("ctf")
            let (status, output) = try await traceViewRecord(["--output", ctf, "--", app, ring])
            #expect(status == 0, "\(output)")
            let ringTrace = try TraceFileReader(path: ring).readAll()
            let lttng = try await traceView(["summary", ctf])
            #expect(lttng.status == 0, "\(lttng.err)")
            #expect(lttng.out.contains("events      \(ringTrace.events.count)\n"), "\(lttng.out)")
            #expect(ringTrace.events.count > 100)
        }

        /// Two processes under one session: kept apart by process id, each whole.
        @Test(.enabled(if: LTTngTools.available)) func twoProcessesStayApart() async throws {
            let example = try #require(builtProduct("TracedExample"))
            let dir = TemporaryDirectory()
            let (a, b) = (dir.file("a.tdtrace"), dir.file("b.tdtrace"))
            let ctf = dir.file("ctf")
            let (status, output) = try await traceViewRecord(
                ["--output", ctf, "--", "/bin/sh", "-c", "\"$0\" \"$1\" & \"$0\" \"$2\"; wait", example, a, b])
            #expect(status == 0, "\(output)")
            let summary = try await traceView(["summary", ctf])
            #expect(summary.out.contains("runtimes    2\n"), "\(summary.out)")
            let merged = try await traceView(["export", "--format", "jsonl", ctf])
            let trace = JSONLinesReader(bytes: Array(merged.out.utf8)).readAll()
            let byProcess = Dictionary(grouping: trace.events, by: \.process)
            #expect(byProcess.count == 2)
            let rings = [try TraceFileReader(path: a).readAll(), try TraceFileReader(path: b).readAll()]
            for ring in rings {
                let pid = try #require(ring.events.first?.process)
                #expect(byProcess[pid]?.count == ring.events.count, "process \(pid)")
                let spawnsInRing = ring.events.filter { $0.kind == .taskSpawn }.count
                #expect(byProcess[pid]?.filter { $0.kind == .taskSpawn }.count == spawnsInRing)
            }
            // One row per task instance of each process (the demo spawns 6).
            let tasks = try await traceView(["tasks", ctf])
            let rows = tasks.out.split(separator: "\n").filter { $0.contains("(pid ") }
            #expect(rows.count == rings.map { $0.events.filter { $0.kind == .taskSpawn }.count }.reduce(0, +), "\(tasks.out)")
            // --pid narrows to one.
            let pidA = try #require(rings[0].events.first?.process)
            let one = try await traceView(["summary", "--pid", String(pidA), ctf])
            #expect(one.status == 0, "\(one.err)")
            let jsonA = try await traceView(["export", "--format", "jsonl", "--pid", String(pidA), ctf])
            #expect(JSONLinesReader(bytes: Array(jsonA.out.utf8)).readAll().events.count == rings[0].events.count)
        }

        /// Two records at once each keep to their own command.
        @Test(.enabled(if: LTTngTools.available)) func concurrentRecordsKeepToTheirCommand() async throws {
            let example = try #require(builtProduct("TracedExample"))
            let dir = TemporaryDirectory()
            let (one, two) = (dir.file("one"), dir.file("two"))
            let (ring1, ring2) = (dir.file("1.tdtrace"), dir.file("2.tdtrace"))
            async let first = Task.detached { try await traceViewRecord(["--output", one, "--", example, ring1]) }.value
            async let second = Task.detached { try await traceViewRecord(["--output", two, "--", example, ring2]) }.value
            let results = try await [first, second]
            for (status, output) in results { #expect(status == 0, "\(output)") }
            for name in ["one", "two"] {
                let summary = try await traceView(["summary", dir.file(name)])
                #expect(summary.out.contains("events      128\n"), "\(name): \(summary.out)")
                #expect(summary.out.contains("runtimes    1\n"), "\(name): \(summary.out)")
            }
            // The same --output twice: the second is refused, the first's trace is intact.
            let again = try await traceViewRecord(["--output", dir.file("one"), "--", example, dir.file("3.tdtrace")])
            #expect(again.status == 64)
            #expect(try await traceView(["summary", dir.file("one")]).status == 0)
        }

        /// A command that records nothing makes `record` fail and say why, every time (whether
        /// LTTng left metadata, an empty directory or nothing: once it said "cannot be read", 65).
        @Test(.enabled(if: LTTngTools.available)) func recordingNothingIsAnError() async throws {
            let dir = TemporaryDirectory()
            for run in 1...3 {
                let (status, output) = try await traceViewRecord(["--output", dir.file("none-\(run)"), "--", "/bin/true"])
                #expect(status == 69, "\(output)")
                #expect(output.contains("recorded no transduce events"), "\(output)")
            }
        }

        /// A trace-view killed with SIGKILL leaves no active session; a session left by a dead one
        /// is found and destroyed by the next record.
        @Test(.enabled(if: LTTngTools.available)) func sessionsDoNotOutliveTraceView() async throws {
            let tool = try #require(builtProduct("trace-view"))
            let lttng = try #require(Subprocess.which("lttng"))
            let dir = TemporaryDirectory()
            // Not Foundation's Process: it learns of a child's end through a pipe that the recorded
            // command inherits, so its wait would last as long as `sleep`.
            let child = try Subprocess.start(
                tool, ["record", "--output", dir.file("killed"), "--", "/bin/sleep", "30"], errors: dir.file("stderr"))
            close(child.output)
            let name = "trace-view-\(child.pid)-"
            @Sendable func sessionListed() throws -> Bool {
                try Subprocess.run(lttng, ["list"], output: .capture, timeout: 60).output.contains(name)
            }
            let errors = dir.file("stderr")
            do {
                try await withTimeout(120) { while try !sessionListed() { try await Task.sleep(for: .milliseconds(100)) } }
            } catch {
                Issue.record(
                    "the session never appeared; trace-view said: \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")"
                )
                throw error
            }
            kill(child.pid, SIGKILL)
            #expect(try Subprocess.wait(child.pid, timeout: 60, name: "trace-view") == 128 + SIGKILL)
            do {
                try await withTimeout(120) { while try sessionListed() { try await Task.sleep(for: .milliseconds(100)) } }
            } catch {
                Issue.record("the session outlived its killed trace-view")
                throw error
            }
            _ = try? Subprocess.run("/usr/bin/pkill", ["-f", "/bin/sleep 30"], output: .discard, timeout: 10)

            // A stale session, as a trace-view killed before its guard started would leave.
            var dead: Int32 = 999_999
            while kill(dead, 0) == 0 { dead -= 1 }
            let stale = "trace-view-\(dead)-1"
            _ = try Subprocess.run(lttng, ["create", stale, "--output=\(dir.file("stale"))"], output: .discard, timeout: 60)
            defer { _ = try? Subprocess.run(lttng, ["destroy", stale], output: .discard, timeout: 60) }
            let (_, output) = try await traceViewRecord(["--output", dir.file("after"), "--", "/bin/true"])
            #expect(output.contains("destroyed the LTTng session \(stale)"), "\(output)")
            #expect(try !Subprocess.run(lttng, ["list"], output: .capture, timeout: 60).output.contains(stale))
        }

        /// A small discard-mode channel under a burst loses events; every view says so, and task
        /// warnings that the losses could explain are qualified.
        @Test(.enabled(if: LTTngTools.available)) func lttngLossesAreCounted() async throws {
            let example = try #require(builtProduct("TracedExample"))
            let dir = TemporaryDirectory()
            let ctf = dir.file("ctf")
            let session = try LTTngSession(
                name: "transduce-loss-\(UUID().uuidString.prefix(8))", output: ctf, events: ["transduce:*"],
                contexts: ["vtid", "vpid"],
                channel: .init(subbufferSize: 4_096, subbuffers: 2, discard: true, readTimer: 2_000_000))
            defer { session.destroy() }
            try session.start()
            let result = try Subprocess.run(
                example, ["--repeat", "300", dir.file("ring.tdtrace")], output: .capture, timeout: 300)
            try session.stop()
            #expect(result.status == 0, "\(result.output)")
            let offered = 300 * 128
            let summary = try await traceView(["summary", ctf])
            #expect(summary.status == 0, "\(summary.err)")
            let trace = JSONLinesReader(bytes: Array(try await traceView(["export", "--format", "jsonl", ctf]).out.utf8))
                .readAll()
            let discarded = trace.counts.discarded
            #expect(discarded > 0, "\(summary.out)")
            // What LTTng kept plus what it says it discarded is what was offered — unless it also lost
            // whole packets, whose event count it does not say; then that is said.
            let kept = UInt64(trace.events.count)
            // A session records every process of the user: the workload's own events never
            // exceed what it offered; the whole equation holds only when no other program
            // recorded meanwhile (their events share the channel and its discards).
            let own = UInt64(trace.events.filter { $0.process == UInt32(result.pid) }.count)
            #expect(own <= UInt64(offered), "kept \(own) of the workload's \(offered)")
            #expect(summary.out.contains("\(discarded) discarded"), "\(summary.out)")
            // The channel is shared with every traced process of the user: when other programs'
            // events crowded out all of the workload's, its views have nothing of it to check.
            guard own > 0 else {
                print("lttngLossesAreCounted: the channel lost every event of the workload beside \(kept) of other programs")
                return
            }
            if own != kept {
                print("lttngLossesAreCounted: other programs recorded \(kept - own) events meanwhile; the sum is not checked")
            } else if summary.err.contains("of events, count unknown") {
                #expect(kept + discarded < UInt64(offered), "kept \(kept), discarded \(discarded)")
            } else {
                // Exact when the machine is quiet (289 + 38,111 = 38,400 measured); under load LTTng
                // has also lost events it reported in no message, so only the bound is asserted.
                #expect(kept + discarded <= UInt64(offered), "kept \(kept), discarded \(discarded): \(summary.err)")
            }
            #expect(summary.out.contains("\(discarded) discarded"), "\(summary.out)")
            #expect(summary.err.contains("LTTng discarded") || summary.out.contains("LTTng discarded"), "\(summary.err)")
            let tasks = try await traceView(["tasks", ctf])
            #expect(!tasks.out.contains("never settled"), "\(tasks.out.suffix(600))")
            // A correct runtime's trace with discards breaks no invariant: what the losses leave
            // open is not judged (it gave 7-17 false violations).
            let check = try await traceView(["check", "--pid", String(result.pid), ctf])
            #expect(check.status == 0, "\(check.out.prefix(2000))")
            #expect(check.out.contains("checked as an incomplete trace"), "\(check.out.prefix(600))")
        }

        /// `record` whose channel overflows says how many events LTTng discarded and exits 79; with
        /// --allow-loss it keeps the command's status and notes the loss. Either way the trace
        /// holds the rest and counts the discards.
        @Test(.enabled(if: LTTngTools.available)) func recordFailsOnLossUnlessAllowed() async throws {
            let example = try #require(builtProduct("TracedExample"))
            let dir = TemporaryDirectory()
            let (strictDir, allowedDir, ring) = (dir.file("strict"), dir.file("allowed"), dir.file("ring.tdtrace"))
            // A small channel read every 2 s: a burst overruns it.
            let small = ["--subbuf-size", "4096", "--num-subbuf", "2", "--read-timer", "2000000"]
            let strict = try await offThePool {
                try traceViewRecordBlocking(small + ["--output", strictDir, "--", example, "--repeat", "300", ring])
            }
            #expect(strict.status == 79, "\(strict.output)")
            #expect(strict.output.contains("LTTng discarded") && strict.output.contains("--allow-loss"), "\(strict.output)")
            // Another traced program beside the test shares the session's channel: when its events
            // crowd out every one of the workload's, that is said, not a failure of the test.
            let crowdedOut = { (output: String) in
                guard output.contains("holds none of the events") else { return false }
                print("recordFailsOnLossUnlessAllowed: the channel lost every event of the workload beside other programs'")
                return true
            }
            if !crowdedOut(strict.output) {
                let summary = try await traceView(["summary", strictDir])
                #expect(summary.out.contains(" discarded"), "\(summary.out)")
            }
            let allowed = try await offThePool {
                try traceViewRecordBlocking(
                    small + ["--allow-loss", "--output", allowedDir, "--", example, "--repeat", "300", ring])
            }
            if crowdedOut(allowed.output) {
                #expect(allowed.status == 79, "\(allowed.output)")
            } else {
                #expect(allowed.status == 0, "\(allowed.output)")
                #expect(allowed.output.contains("(--allow-loss)"), "\(allowed.output)")
            }
            let wrong = try await offThePool { try traceViewRecordBlocking(["--subbuf-size", "5000", "--", example]) }
            #expect(wrong.status == 64, "\(wrong.output)")
        }

        /// babeltrace2 itself shows every label as the ring buffer recorded it, empty ones as ∅ (an
        /// empty text would show the previous event's in babeltrace2 2.0.4).
        @Test(.enabled(if: LTTngTools.available)) func labelsReadBackThroughBabeltrace2() async throws {
            let example = try #require(builtProduct("TracedExample"))
            let dir = TemporaryDirectory()
            let ringFile = dir.file("ring.tdtrace")
            let (ctf, pid) = try await LTTngTools.record(into: dir.path, example, [ringFile])
            let (status, text) = try await run(LTTngTools.babeltrace!, [ctf])
            #expect(status == 0)
            let ring = try TraceFileReader(path: ringFile).readAll()
            // (event, field, value) of every text field, from babeltrace2's own text output.
            let textFields: [TraceEvent.Kind: [(String, TraceSchema.Slot)]] = Dictionary(
                uniqueKeysWithValues: TraceEvent.Kind.allCases.map { kind in
                    (
                        kind,
                        TraceSchema.fields(of: kind).filter { $0.slot == .label || $0.slot == .label2 }.map { ($0.name, $0.slot) }
                    )
                })
            var shown: [String: Int] = [:]
            for line in text.split(separator: "\n") where line.contains("vpid = \(pid)") {
                guard let start = line.range(of: "transduce:"), let colon = line[start.upperBound...].firstIndex(of: ":") else {
                    continue
                }
                guard let kind = TraceEvent.Kind(lttngName: String(line[start.upperBound..<colon])) else { continue }
                for (name, _) in textFields[kind] ?? [] {
                    guard let field = line.range(of: " \(name) = \"") else {
                        Issue.record("no \(name) in \(line)")
                        continue
                    }
                    let value = line[field.upperBound...].prefix { $0 != "\"" }
                    // An empty label is written as ∅ (transduce_tp.h): babeltrace2 shows it so.
                    shown["\(kind) \(name)=\(value == CTFTraceReader.emptyText ? "" : value)", default: 0] += 1
                }
            }
            var recorded: [String: Int] = [:]
            for e in ring.events {
                for (name, slot) in textFields[e.kind] ?? [] {
                    recorded["\(e.kind) \(name)=\(slot == .label ? e.label : e.label2)", default: 0] += 1
                }
            }
            #expect(recorded.values.reduce(0, +) > 50)
            #expect(recorded.keys.contains { $0.hasSuffix("=") }, "the workload has empty labels")
            #expect(shown == recorded)
        }

        /// Damaged CTF input ends with a clear error within its budget, never a hang or a crash.
        @Test(.enabled(if: LTTngTools.available)) func damagedCTFIsAnError() async throws {
            let example = try #require(builtProduct("TracedExample"))
            let dir = TemporaryDirectory()
            let (ctf, _) = try await LTTngTools.record(into: dir.path, example, [dir.file("ring.tdtrace")])
            let fm = FileManager.default
            let metadata = try #require(
                fm.enumerator(atPath: ctf)?.compactMap { $0 as? String }.first { $0.hasSuffix("metadata") })
            // A metadata file cut short, as copying a trace LTTng still writes gives.
            let cut = dir.file("cut")
            try fm.copyItem(atPath: ctf, toPath: cut)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: ctf + "/" + metadata))
            try bytes.prefix(100).write(to: URL(fileURLWithPath: cut + "/" + metadata))
            let started = Date()
            let result = try await traceView(["summary", cut], environment: ["TRANSDUCE_CTF_SECONDS": "10"])
            #expect(result.status == 65, "\(result.err)")
            #expect(result.err.contains("cannot read this CTF trace"), "\(result.err)")
            #expect(Date().timeIntervalSince(started) < 60)
            // Stream files overwritten with noise.
            let noisy = dir.file("noisy")
            try fm.copyItem(atPath: ctf, toPath: noisy)
            let streams = (fm.enumerator(atPath: noisy)?.compactMap { $0 as? String } ?? []).filter {
                !$0.hasSuffix("metadata") && !$0.contains("index") && !$0.hasSuffix("trace-view-record")
            }
            for stream in streams {
                let path = noisy + "/" + stream
                var isDirectory: ObjCBool = false
                guard fm.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
                var data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
                var state: UInt64 = 0x9E37_79B9_7F4A_7C15
                for i in stride(from: 64, to: data.count, by: 7) {
                    state = state &* 6_364_136_223_846_793_005 &+ 1
                    data[i] = UInt8(truncatingIfNeeded: state >> 56)
                }
                try Data(data).write(to: URL(fileURLWithPath: path))
            }
            let noise = try await traceView(["summary", noisy], environment: ["TRANSDUCE_CTF_SECONDS": "30"])
            #expect([0, 65].contains(noise.status), "\(noise.err)")
            // Out of its memory budget, the reading child fails and says so.
            let starved = try await traceView(["summary", ctf], environment: ["TRANSDUCE_CTF_MEMORY_MB": "8"])
            #expect(starved.status == 65)
            #expect(starved.err.contains("8 MB budget"), "\(starved.err)")
            // A directory holding many traces is refused rather than searched without bound.
            let many = dir.file("many")
            for i in 0...CTFTraceReader.maxTraces { try fm.copyItem(atPath: ctf, toPath: many + "/\(i)") }
            let refused = try await traceView(["summary", many])
            #expect(refused.status == 65)
            #expect(refused.err.contains("more than \(CTFTraceReader.maxTraces) CTF traces"), "\(refused.err)")
            // The library's reader says which with a code.
            let tooMany = #expect(throws: CTFTraceReader.ReadError.self) { try CTFTraceReader.readAll(path: many) }
            #expect(tooMany?.code == .tooManyTraces, "\(String(describing: tooMany))")
            let empty = dir.file("empty")
            try fm.createDirectory(atPath: empty, withIntermediateDirectories: true)
            let none = #expect(throws: CTFTraceReader.ReadError.self) { try CTFTraceReader.readAll(path: empty) }
            #expect(none?.code == .noTrace, "\(String(describing: none))")
        }
    }
}
