import Foundation
import Testing
import TransduceTestSupport

@testable import TransduceTrace

/// The index kept beside a trace file (`TRACE.tdidx`): `sequence --request` read through it draws
/// what a read of the whole file draws, and an index that does not describe the file as it is
/// (stale, damaged, hostile, not a file) is never trusted, only rebuilt. (The oracle across
/// processes checks every request of its merged traces through an index, with no margin.)
@Suite struct TraceFileIndexTests {
    /// The demo as a binary trace of two processes (pids 11 and 12, the second a little later),
    /// interleaved by time.
    static func twoProcessDemo(in dir: TemporaryDirectory, name: String = "demo.tdtrace") throws -> String {
        let demo = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let events = [UInt32(11), 12].enumerated().flatMap { n, pid in
            demo.map {
                var e = $0
                e.process = pid
                e.time += UInt64(n) * 1_700
                return e
            }
        }
        .enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        let path = dir.file(name)
        try TraceFileWriter.write(Trace(events: events), to: path)
        return path
    }

    /// Every dispatch of every runtime: the same chart, status and errors through the index as
    /// from the whole file; the index is written once and reused.
    @Test func sequenceThroughTheIndexDrawsWhatTheWholeFileDraws() async throws {
        let dir = TemporaryDirectory()
        let path = try Self.twoProcessDemo(in: dir)
        let demo = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let ids = Set(demo.filter { $0.kind == .dispatch }.map(\.dispatch)).sorted()
        #expect(ids.count >= 10)
        var compared = 0
        for pid in ["11", "12"] {
            for id in ids + [ids.last! + 1] {
                let args = ["sequence", "--request", String(id), "--runtime", "1", "--pid", pid, "--width", "140"]
                // A place to start again every 4 events: most requests start reading mid-file.
                let indexed = try await traceView(args + [path], environment: [Self.every: "4"])
                let whole = try await traceView(args + ["--no-index", path])
                #expect(
                    indexed.status == whole.status && indexed.out == whole.out && indexed.err == whole.err, "#\(id) pid \(pid)")
                compared += 1
            }
        }
        #expect(compared == 2 * (ids.count + 1))
        // Without --pid, a dispatch both processes have is refused the same way.
        let both = try await traceView(["sequence", "--request", String(ids[0]), path])
        #expect(both.status == 64 && both.err.contains("pick one with --runtime and --pid"), "\(both.err)")
        // Built once, kept, and describing the file.
        let identity = try #require(TraceFileIndex.identity(of: path))
        let kept = TraceFileIndex.load(sidecarOf: path, identity: identity)
        #expect(kept.index != nil && kept.refused == nil)
        #expect(kept.index?.events == demo.count * 2)
        #expect((kept.index?.checkpoints.count ?? 0) > 40)
    }

    static let every = "TRACE_VIEW_INDEX_EVERY"

    /// A trace replaced by another (even of the same size and time) makes its index stale: the
    /// chart is the new trace's, and the index is rebuilt for it.
    @Test func aStaleIndexIsRebuiltNotTrusted() async throws {
        let dir = TemporaryDirectory()
        let path = try Self.twoProcessDemo(in: dir)
        let args = ["sequence", "--request", "4", "--runtime", "1", "--pid", "11", "--width", "140"]
        let before = try await traceView(args + [path])
        #expect(before.status == 0)
        let old = try #require(TraceFileIndex.identity(of: path))
        // Same length and modification time, other bytes: a string renamed in place (a string
        // chunk: tag 1, length, checksum, id, text), its chunk's checksum kept right.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let label = Array("load".utf8)
        let at = try #require(bytes.indices.first { $0 >= 16 && Array(bytes[$0..<min($0 + 4, bytes.count)]) == label })
        let chunk = at - 16
        try #require(bytes[chunk] == 1)
        bytes.replaceSubrange(at..<at + 4, with: Array("LOAD".utf8))
        let length = bytes.withUnsafeBytes { Int($0.le(chunk + 4, as: UInt32.self)) }
        let crc = CRC32.checksum(Array(bytes[(chunk + 12)..<(chunk + 12 + length)]))
        withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange((chunk + 8)..<(chunk + 12), with: $0) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var times = [timespec(tv_sec: Int(old.seconds), tv_nsec: Int(old.nanoseconds))]
        times.append(times[0])
        #expect(utimensat(AT_FDCWD, path, times, 0) == 0)
        let new = try #require(TraceFileIndex.identity(of: path))
        #expect(new.size == old.size && new.seconds == old.seconds && new.nanoseconds == old.nanoseconds && new != old)
        // Stale: not trusted, and not worth a word (the trace changed).
        let stale = TraceFileIndex.load(sidecarOf: path, identity: new)
        #expect(stale.index == nil && stale.refused == nil)
        let after = try await traceView(args + [path])
        let whole = try await traceView(args + ["--no-index", path])
        #expect(after.status == 0 && after.out == whole.out && after.err == whole.err)
        #expect(TraceFileIndex.load(sidecarOf: path, identity: new).index?.strings.contains { $0.hasPrefix("LOAD") } == true)
    }

    /// The spans, kept in chunks, are one ordered collection: read, changed and compared across
    /// the chunks' boundaries as an array is, and written and read back whole.
    @Test func spansAcrossChunksAreOneCollection() async throws {
        let dir = TemporaryDirectory()
        let path = try Self.twoProcessDemo(in: dir)
        let identity = try #require(TraceFileIndex.identity(of: path))
        var index = TraceFileIndex.build(reader: try TraceFileReader(path: path), identity: identity, every: 8)
        let list = (0..<5_000).map { n in
            TraceFileIndex.Span(
                checkpoint: n % index.checkpoints.count, runtime: RuntimeKey(process: 11, runtime: UInt64(n % 3 + 1)),
                dispatches: UInt64(n)...UInt64(n + 2), from: n)
        }
        var spans = TraceFileIndex.Spans()
        for s in list { spans.append(s) }
        #expect(spans.count == 5_000 && Array(spans) == list && spans == TraceFileIndex.Spans(list))
        #expect(spans[2_047] == list[2_047] && spans[2_048] == list[2_048] && spans[4_999] == list[4_999])
        spans[2_048].from = 7
        #expect(spans != TraceFileIndex.Spans(list) && spans[2_048].from == 7 && spans[2_047].from == 2_047)
        #expect(TraceFileIndex.Spans(list.dropLast()) != TraceFileIndex.Spans(list))
        index.spans = spans
        let key = TraceFileIndex.Key(bytes: Array(repeating: 7, count: 32))
        #expect(try TraceFileIndex(decoding: index.encoded(key: key), key: key) == index)
    }

    /// Damage anywhere in an index is found (its checksum), and bytes that pass the checksum but
    /// say absurd things are refused without allocating what they claim; views stay right and
    /// rewrite it.
    @Test func aDamagedOrHostileIndexIsRefused() async throws {
        let dir = TemporaryDirectory()
        let path = try Self.twoProcessDemo(in: dir)
        let identity = try #require(TraceFileIndex.identity(of: path))
        let index = TraceFileIndex.build(reader: try TraceFileReader(path: path), identity: identity, every: 8)
        let key = TraceFileIndex.Key(bytes: Array(repeating: 7, count: 32))
        let bytes = index.encoded(key: key)
        #expect(try TraceFileIndex(decoding: bytes, key: key) == index)
        #expect(index.checkpoints.count > 10 && !index.spans.isEmpty)
        for at in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            var damaged = bytes
            damaged[at] ^= 0x5A
            #expect(throws: TraceFileIndex.Refusal.self) { try TraceFileIndex(decoding: damaged, key: key) }
        }
        for cut in [0, 7, 20, bytes.count / 2, bytes.count - 1] {
            #expect(throws: TraceFileIndex.Refusal.self) { try TraceFileIndex(decoding: Array(bytes.prefix(cut)), key: key) }
        }
        // Checksummed and signed lies (what a bug of this user's trace-view could write): a
        // count of 2^32 − 1 notes, a checkpoint past the file's end.
        func sealed(_ body: [UInt8]) -> [UInt8] {
            var b = body
            b.appendLE(CRC32.checksum(body))
            return b + SHA256.hmac(key: key.bytes, b)
        }
        let notesAt = 8 + 8 + 8 * 3 + 8 + 16
        var huge = Array(bytes.dropLast(36))
        huge.replaceSubrange(notesAt..<notesAt + 4, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: TraceFileIndex.Refusal.self) { try TraceFileIndex(decoding: sealed(huge), key: key) }
        var far = index
        far.checkpoints[1].offset = Int(identity.size) + 80
        #expect(throws: TraceFileIndex.Refusal.self) { try TraceFileIndex(decoding: far.encoded(key: key), key: key) }
        var unordered = index
        unordered.checkpoints.swapAt(1, 2)
        #expect(throws: TraceFileIndex.Refusal.self) { try TraceFileIndex(decoding: unordered.encoded(key: key), key: key) }
        // Another key's index (another user's, or a forger's) is refused as such.
        let other = TraceFileIndex.Key(bytes: Array(repeating: 8, count: 32))
        #expect(
            throws: TraceFileIndex.Refusal(
                description: "its signature is not this user's (it was not written by this user's trace-view)", isForgery: true)
        ) {
            try TraceFileIndex(decoding: index.encoded(key: other), key: key)
        }
        // Through the command: a damaged index kept beside the trace is said once and rebuilt.
        let kept = try #require(TraceFileIndex.Key.current)
        var damaged = index.encoded(key: kept)
        damaged[damaged.count / 3] ^= 1
        try Data(damaged).write(to: URL(fileURLWithPath: TraceFileIndex.sidecarPath(of: path)))
        let args = ["sequence", "--request", "2", "--runtime", "1", "--pid", "12", "--width", "140"]
        let indexed = try await traceView(args + [path])
        let whole = try await traceView(args + ["--no-index", path])
        #expect(indexed.status == 0 && indexed.out == whole.out)
        #expect(indexed.err.contains("ignored") && indexed.err.contains(".tdidx"), "\(indexed.err)")
        #expect(TraceFileIndex.load(sidecarOf: path, identity: identity).index != nil)
    }

    /// A FIFO (or anything not a regular file) at the index's name is neither read (which would
    /// block) nor written into.
    @Test func aFIFOAtTheIndexPathIsNotOpened() async throws {
        let dir = TemporaryDirectory()
        let path = try Self.twoProcessDemo(in: dir)
        let sidecar = TraceFileIndex.sidecarPath(of: path)
        #expect(mkfifo(sidecar, 0o644) == 0)
        let identity = try #require(TraceFileIndex.identity(of: path))
        let refused = TraceFileIndex.load(sidecarOf: path, identity: identity).refused
        #expect(refused?.description.contains("not a regular file") == true)
        let args = ["sequence", "--request", "3", "--runtime", "1", "--pid", "11", "--width", "140"]
        let indexed = try await traceView(args + [path])
        let whole = try await traceView(args + ["--no-index", path])
        #expect(indexed.status == 0 && indexed.out == whole.out)
        // The FIFO was left as it is: neither written through nor replaced.
        var info = stat()
        #expect(lstat(sidecar, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(TraceFileIndex.load(sidecarOf: path, identity: identity).index == nil)
    }

    /// A request id that more runtimes hold than a view reads the stretches of
    /// (``LifecycleWindow/maxRuntimes``) is answered from the index alone: nothing is read,
    /// and `sequence` asks which one, naming them. (Each one's stretch was read and held: 621 MB
    /// and 21 s at 10M events in 78,126 runtimes; 574 MB without the index.) One of them,
    /// picked, is read as before.
    @Test func aRequestManyRuntimesHoldIsNamedFromTheIndexAlone() async throws {
        let dir = TemporaryDirectory()
        let demo = try JSONLinesReader(path: fixtures + "/demo.jsonl").readAll().events
        let processes = LifecycleWindow.maxRuntimes + 6
        let events = (0..<processes).flatMap { n in
            demo.map {
                var e = $0
                e.process = UInt32(100 + n)
                e.time += UInt64(n) * 1_000
                return e
            }
        }
        .enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        let path = dir.file("many.tdtrace")
        try TraceFileWriter.write(Trace(events: events), to: path)
        let identity = try #require(TraceFileIndex.identity(of: path))
        let index = TraceFileIndex.build(reader: try TraceFileReader(path: path), identity: identity, every: 64)
        let id = try #require(demo.first { $0.isAwaitedDispatch }?.dispatch)
        let all = try index.findLifecycle(of: id, path: path, admits: { _ in true }, admitsRuntime: { _ in true })
        #expect(all.found.passes == 0 && all.found.stretches.isEmpty && all.found.runtimes.count == processes)
        let key = RuntimeKey(process: 130, runtime: demo[0].runtime)
        let one = try index.findLifecycle(
            of: id, path: path, admits: { $0.runtimeKey == key }, admitsRuntime: { $0 == key })
        #expect(one.found.passes >= 1 && one.found.runtimes == [key] && one.found.stretches[key] != nil)
        // Without the index: one pass names them, following no runtime's lifecycle past 64 (each
        // one's was kept), and the few that hold it in a narrower trace are followed whole.
        let unread = LifecycleWindow.find(dispatch: id) { events.forEach($0) }
        #expect(unread.runtimes.count == processes && unread.stretches.isEmpty && unread.passes == 1)
        let few = LifecycleWindow.find(dispatch: id) { body in events.filter { $0.process < 110 }.forEach(body) }
        #expect(few.runtimes.count == 10 && few.stretches.count == 10)
        for index in [true, false] {
            let asked = try await traceView(["sequence", "--request", "\(id)", path] + (index ? [] : ["--no-index"]))
            #expect(asked.status == 64, "\(asked.err)")
            #expect(asked.err.contains("(\(processes) runtimes); pick one with --runtime and --pid"), "\(asked.err)")
        }
        let picked = try await traceView([
            "sequence", "--request", "\(id)", "--pid", "130", "--runtime", "\(demo[0].runtime)", path,
        ])
        let whole = try await traceView(
            ["sequence", "--request", "\(id)", "--pid", "130", "--runtime", "\(demo[0].runtime)", "--no-index", path])
        #expect(picked.status == 0 && picked.out == whole.out && !picked.out.isEmpty, "\(picked.err)")
    }

    /// `report` of a file with no index kept indexes it in a pass of its own before its first
    /// (the builder's memory gone before the view's), keeps it, and writes the page a run with
    /// the index kept writes; where it cannot be kept, the run holds it and writes the same.
    @Test func reportIndexesAFileInAPassOfItsOwnFirst() async throws {
        let dir = TemporaryDirectory()
        let path = try Self.twoProcessDemo(in: dir)
        let sidecar = TraceFileIndex.sidecarPath(of: path)
        let say = ["TRACE_VIEW_SAY_READS": "1"]
        let first = try await traceView(["report", path], environment: say)
        #expect(first.status == 0, "\(first.err)")
        #expect(first.err.contains("and the input once more to index it"), "\(first.err)")
        #expect(FileManager.default.fileExists(atPath: sidecar))
        let reads = try #require(traceViewReads(first.err))
        #expect(reads.input == reads.passes + 1)
        let again = try await traceView(["report", path], environment: say)
        #expect(again.status == 0 && again.out == first.out, "\(again.err)")
        #expect(!again.err.contains("to index it") && traceViewReads(again.err)?.input == reads.passes)
        // A directory at the index's name: not kept, held for the run, the same page.
        try FileManager.default.removeItem(atPath: sidecar)
        try FileManager.default.createDirectory(atPath: sidecar + "/inside", withIntermediateDirectories: true)
        let unkept = try await traceView(["report", path], environment: say)
        #expect(unkept.status == 0 && unkept.out == first.out, "\(unkept.err)")
        #expect(unkept.err.contains("to index it"), "\(unkept.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sidecar) == ["inside"])
    }

    /// Where the index cannot be kept (here a directory holds its name: root ignores a
    /// read-only directory), it serves the run it was built for, and leaves nothing behind.
    @Test func anIndexThatCannotBeKeptStillServesItsRun() async throws {
        let dir = TemporaryDirectory()
        let path = try Self.twoProcessDemo(in: dir)
        let sidecar = TraceFileIndex.sidecarPath(of: path)
        try FileManager.default.createDirectory(atPath: sidecar + "/inside", withIntermediateDirectories: true)
        let args = ["sequence", "--request", "5", "--runtime", "1", "--pid", "11", "--width", "140"]
        let whole = try await traceView(args + ["--no-index", path])
        let indexed = try await traceView(args + [path], environment: [Self.every: "4"])
        #expect(indexed.status == 0 && indexed.out == whole.out && indexed.err == whole.err)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["demo.tdtrace", "demo.tdtrace.tdidx"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: sidecar) == ["inside"])
    }
}

/// A runtime's key names its process and its id, orders by process then id, and packs into the
/// one word a trace index stores (a hostile id beyond 2^40 is cut, never crashes).
@Suite struct RuntimeKeyTests {
    @Test func aKeyIsItsProcessAndItsIdPackedInOneWord() {
        let keys = [
            RuntimeKey(process: 0, runtime: 3), RuntimeKey(process: 4242, runtime: 1), RuntimeKey(process: 4242, runtime: 2),
            RuntimeKey(process: 9000, runtime: 1),
        ]
        #expect(keys.map(\.process) == [0, 4242, 4242, 9000])
        #expect(keys.map(\.runtime) == [3, 1, 2, 1])
        #expect(keys.map(\.name) == ["3", "1 (pid 4242)", "2 (pid 4242)", "1 (pid 9000)"])
        #expect(keys == keys.shuffled().sorted())
        #expect(keys.map { RuntimeKey(rawValue: $0.rawValue) } == keys)
        #expect(RuntimeKey(process: 0, runtime: 3) == 3)
        let hostile = RuntimeKey(process: 7, runtime: 1 << 41 | 5)
        #expect(hostile.process == 7 && hostile.runtime == 5)
        #expect(Set(keys + keys).count == keys.count)
    }
}

/// Forged indexes: a valid identity and checksum (anyone with the trace can compute both) over
/// lies — labels renamed, times shifted, runtimes emptied, dispatches hidden, notes of damage —
/// signed with another key or carrying the genuine index's signature. None is trusted: every view
/// draws what `--no-index` draws, byte for byte, and says once that the index was ignored.
@Suite struct ForgedIndexTests {
    typealias Forgery = (name: String, lie: @Sendable (inout TraceFileIndex) -> Void)

    static let lies: [Forgery] = [
        ("labels renamed", { i in i.strings = i.strings.map { $0.isEmpty ? $0 : "FORGED" } }),
        ("one label renamed", { i in if i.strings.count > 2 { i.strings[2] = "load-FORGED" } }),
        ("times shifted", { i in i.firstTime = i.firstTime.map { $0 &- 1_000_000 } }),
        ("no first time", { i in i.firstTime = nil }),
        ("spans emptied", { i in i.spans = [] }),
        (
            "dispatches shifted",
            { i in
                for j in i.spans.indices {
                    i.spans[j].dispatches = (i.spans[j].dispatches.lowerBound + 1)...(i.spans[j].dispatches.upperBound + 1)
                }
            }
        ),
        ("runtimes emptied", { i in i.runtimes = [] }),
        (
            "highest dispatch lowered",
            { i in
                i.runtimes = i.runtimes.map {
                    var r = $0; r.highestDispatch = 1; return r
                }
            }
        ),
        ("event count halved", { i in i.events /= 2 }),
        ("a note of damage", { i in i.notes.append("the trace is damaged at byte 12") }),
        ("hosts renamed", { i in i.hosts = [11: "forged-host", 12: "forged-host"] }),
        ("checkpoints dropped", { i in i.checkpoints = Array(i.checkpoints.prefix(1)) }),
        (
            "reading starts late",
            { i in
                for j in i.spans.indices { i.spans[j].from += 8 }
            }
        ),
        (
            "spans of another runtime",
            { i in
                for j in i.spans.indices { i.spans[j].runtime = RuntimeKey(process: 11, runtime: 9) }
            }
        ),
    ]

    /// What one forgery did: whether loading refused it as another key's, each view's status,
    /// output and errors, and whether the first view replaced it with this user's own index.
    struct Outcome: Sendable {
        var name: String
        var refusedAsForged: Bool
        var runs: [(status: Int32, out: String, err: String)]
        var replaced: [Bool]
    }

    @Test func noForgeryIsTrusted() async throws {
        let dir = TemporaryDirectory()
        let path = try TraceFileIndexTests.twoProcessDemo(in: dir)
        let identity = try #require(TraceFileIndex.identity(of: path))
        let genuine = TraceFileIndex.build(reader: try TraceFileReader(path: path), identity: identity, every: 4)
        let key = try #require(TraceFileIndex.Key.current)
        let signature = Array(genuine.encoded(key: key).suffix(32))
        let other = TraceFileIndex.Key(bytes: (0..<32).map { UInt8($0) })
        let views = [3, 8, 17].map { ["sequence", "--request", String($0), "--runtime", "1", "--pid", "11", "--width", "140"] }
        var forgeries: [(name: String, bytes: [UInt8])] = []
        for (name, lie) in Self.lies {
            var forged = genuine
            lie(&forged)
            #expect(forged != genuine, "\(name) changes nothing")
            // Signed with the forger's own key, and with the genuine index's signature kept.
            forgeries.append((name + ", another key", forged.encoded(key: other)))
            forgeries.append((name + ", the genuine signature", Array(forged.encoded(key: other).dropLast(32)) + signature))
        }
        #expect(forgeries.count == 28)
        // Some 90 runs of trace-view, waited for off the concurrency pool.
        let all = forgeries
        let sidecar = TraceFileIndex.sidecarPath(of: path)
        let (truths, outcomes) = try await offThePool { () -> ([(status: Int32, out: String, err: String)], [Outcome]) in
            let truths = try views.map { try traceViewBlocking($0 + ["--no-index", path]) }
            let outcomes = try all.map { forgery -> Outcome in
                try Data(forgery.bytes).write(to: URL(fileURLWithPath: sidecar))
                let refused = TraceFileIndex.load(sidecarOf: path, identity: identity)
                var outcome = Outcome(
                    name: forgery.name,
                    refusedAsForged: refused.index == nil && refused.refused?.isForgery == true, runs: [], replaced: [])
                for view in views {
                    outcome.runs.append(try traceViewBlocking(view + [path], environment: [TraceFileIndexTests.every: "4"]))
                    outcome.replaced.append(TraceFileIndex.load(sidecarOf: path, identity: identity).index != nil)
                    try Data(forgery.bytes).write(to: URL(fileURLWithPath: sidecar))
                }
                return outcome
            }
            return (truths, outcomes)
        }
        let note =
            "trace-view: note: \(sidecar): its signature is not this user's (it was not written by this user's trace-view): "
            + "ignored, the trace itself is read\n"
        for outcome in outcomes {
            #expect(outcome.refusedAsForged, "\(outcome.name)")
            for ((run, truth), replaced) in zip(zip(outcome.runs, truths), outcome.replaced) {
                #expect(run.status == truth.status && run.out == truth.out, "\(outcome.name)")
                #expect(run.err == note + truth.err || run.err == truth.err, "\(outcome.name): \(run.err)")
                // The view replaced it with this user's own.
                #expect(replaced, "\(outcome.name)")
            }
        }
        #expect(outcomes.count == 28 && outcomes.allSatisfy { $0.runs.count == views.count })
    }
}
