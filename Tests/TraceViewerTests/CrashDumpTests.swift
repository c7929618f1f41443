import CTraceRing
import Foundation
import Synchronization
import Testing
import TraceTooling
import Transduce
import TransduceDemo
import TransduceTestSupport

@testable import TransduceTrace

/// Dumps that survive how a process ends: signals, traps, concurrent writers, truncation.
@Suite struct CrashDumpTests {
    /// Each ending of a child leaves a whole trace, and the child ends as it would have without
    /// the recorder (128 + the signal).
    /// (One child at a time, so that five starting at once do not starve concurrent tests.)
    @Test(.serialized, arguments: [("INT", SIGINT), ("TERM", SIGTERM), ("HUP", SIGHUP), ("trap", SIGILL), ("throw", SIGILL)])
    func everyEndingKeepsATrace(_ how: String, signal: Int32) async throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"))
        let path = dir.file("end-\(how).tdtrace")
        // The backtracer stays on for the trap (the chained handler must still run), off for
        // the rest to keep the test quick.
        // (Under ThreadSanitizer the backtracer itself cannot run: TSan rejects its clone from a
        // signal handler, with or without the dump.)
        let backtracer = how == "trap" && !underThreadSanitizer
        // Under a caller's trace context, so that every kind is there to keep.
        var environment = ["TRANSDUCE_TRACE": path, "TRACEPARENT": TraceContexts.server.traceparent]
        if !backtracer { environment["SWIFT_BACKTRACE"] = "enable=no" }
        let (status, output) = try await run(example, ["--end-with", how], environment: environment)
        #expect(status == 128 + signal, "\(output)")
        if backtracer { #expect(output.contains("Program crashed"), "the Swift backtracer ran after the dump") }
        let trace = try TraceFileReader(path: path).readAll()
        #expect(trace.notes.isEmpty)
        #expect(trace.counts.occasion == .termination, "the dump says the process was cut short")
        #expect(Set(trace.events.map(\.kind)) == Set(TraceEvent.Kind.allCases))
        let taskNames = Set(trace.events.filter { $0.kind == .taskSpawn }.map(\.label))
        #expect(taskNames.isSuperset(of: ["load", "refresh", "catalogue"]), "dynamic labels resolved: \(taskNames)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    /// A trap while another thread writes a dump: the crash handler's dump stands whole, and the
    /// other writer's temporary file is removed (it was left behind, empty).
    @Test func aCrashWhileADumpIsWrittenLeavesNoTemporaryFile() async throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"))
        let path = dir.file("crash.tdtrace")
        let (status, output) = try await run(
            example, ["--end-with", "trap-while-writing"],
            environment: ["TRANSDUCE_TRACE": path, "SWIFT_BACKTRACE": "enable=no"])
        #expect(status == 128 + SIGILL, "\(output)")
        let trace = try TraceFileReader(path: path).readAll()
        #expect(trace.notes.isEmpty)
        #expect(trace.counts.occasion == .termination)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// The termination dump follows a symbolic link (the link stays a link, its target gets the
    /// dump) and writes a FIFO in place; a FIFO nobody reads is skipped, not waited for.
    @Test func theTerminationDumpRespectsWhatIsAtItsPath() async throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"))
        let target = dir.file("target.tdtrace")
        try "old".write(toFile: target, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.tdtrace"), withDestinationPath: target)
        let (linked, linkedOutput) = try await run(
            example, ["--end-with", "TERM"],
            environment: ["TRANSDUCE_TRACE": dir.file("link.tdtrace"), "SWIFT_BACKTRACE": "enable=no"])
        #expect(linked == 128 + SIGTERM, "\(linkedOutput)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dir.file("link.tdtrace"))) == target)
        #expect(try TraceFileReader(path: target).readAll().counts.occasion == .termination)

        let fifo = dir.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Nobody reads: the ending is not held up, and the FIFO stays a FIFO.
        let (unread, unreadOutput) = try await run(
            example, ["--end-with", "TERM"], environment: ["TRANSDUCE_TRACE": fifo, "SWIFT_BACKTRACE": "enable=no"])
        #expect(unread == 128 + SIGTERM, "\(unreadOutput)")
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        // A reader: it gets the whole dump.
        let received = Mutex<[UInt8]?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let fd = open(fifo, O_RDONLY)
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while fd >= 0 {
                let n = read(fd, &chunk, chunk.count)
                if n > 0 { bytes += chunk[0..<n] } else if n < 0 && errno == EINTR { continue } else { break }
            }
            if fd >= 0 { close(fd) }
            received.withLock { $0 = bytes }
            done.signal()
        }
        let (ended, endedOutput) = try await run(
            example, ["--end-with", "TERM"], environment: ["TRANSDUCE_TRACE": fifo, "SWIFT_BACKTRACE": "enable=no"])
        #expect(ended == 128 + SIGTERM, "\(endedOutput)")
        #expect(done.wait(timeout: .now() + 60) == .success, "the FIFO's reader never got an end")
        let bytes = try #require(received.withLock { $0 })
        let trace = try TraceFileReader(bytes: bytes).readAll()
        #expect(trace.notes.isEmpty && trace.counts.occasion == .termination && !trace.events.isEmpty)
    }

    /// A FIFO whose reader opened it and never reads: the termination dump (larger than the
    /// pipe's buffer) gives up after its bounded wait, and the process ends with its signal.
    @Test func aStalledFIFOReaderCannotHoldTheEnding() async throws {
        let dir = TemporaryDirectory()
        let example = try #require(builtProduct("TracedExample"))
        let fifo = dir.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        // Opened for reading (so the dump's open succeeds) and never read.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        // The end is read where the child is waited for: the wait to resume this test's task on a
        // busy concurrency pool is not the ending's.
        let (status, output, ended) = try await offThePool {
            let (status, output) = try runBlocking(
                example, ["--end-with", "TERM"],
                environment: ["TRANSDUCE_TRACE": fifo, "SWIFT_BACKTRACE": "enable=no", "TRANSDUCE_EXAMPLE_RUNS": "12"])
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return (status, output, UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec))
        }
        #expect(status == 128 + SIGTERM, "\(output)")
        // The ending alone, from the signal to the exit (the runs before it take a minute under
        // ThreadSanitizer on a busy machine): the wait is 5 s at most; 30 s is far short of a hang.
        // Not timed under ThreadSanitizer: it holds an asynchronous signal until the thread next
        // enters one of its interceptors, and one CI run's ending took 110 s there (the plain
        // and busy runs time it).
        let line = output.split(separator: "\n").first { $0.hasPrefix("ending at ") }
        let signalled = try #require(line.flatMap { UInt64($0.dropFirst("ending at ".count)) }, "\(output)")
        if !underThreadSanitizer {
            #expect(
                ended >= signalled && Double(ended - signalled) < 30e9 * Patience.factor, "\(Double(ended &- signalled) / 1e9) s")
        }
        #expect(output.contains("trace dump on signal failed"), "\(output)")
    }

    /// The handler's writer (C, no allocation) writes what the Swift writer writes for the same
    /// ring, payloads aside: one lane, and four lanes that threads share, merged by time alike.
    @Test(arguments: [1, 4]) func signalWriterMatchesTheSwiftWriter(lanes: Int) async throws {
        let dir = TemporaryDirectory()
        let recorder = TraceRecorder(
            capacity: lanes << 8, mode: .overwriteOldest, lttng: false, payloads: nil, ringEnabled: true,
            slowRequests: nil, lanes: lanes, dumpWriter: { try TraceFileWriter.write($0, to: $1) })
        #expect(recorder.ring.lanes.count == lanes)
        // Wraps the ring: each lane keeps 256 of more.
        for _ in 0..<(2 * lanes) { _ = try await DemoWorkload.run(instrument: recorder) }
        let path = dir.file("signal.tdtrace")
        #expect(
            clttng_signal_dump_configure(
                recorder.ring.slotMemory, UInt64(recorder.ring.capacity), UInt64(lanes), recorder.labels.mirror, path, 0)
                == 1)
        let written = clttng_signal_dump_write()
        let expected = recorder.snapshot()
        #expect(written == Int64(expected.events.count))
        let dumped = try TraceFileReader(path: path).readAll()
        #expect(dumped.notes.isEmpty)
        #expect(dumped.events == expected.events)
        #expect(dumped.counts.overwritten == expected.counts.overwritten)
        #expect(dumped.counts.occasion == .termination && expected.counts.occasion == .unsaid)
    }

    /// Writers racing on one path never leave a torn file: each has its own temporary file and
    /// renames it whole.
    @Test func concurrentWritersNeverTear() async throws {
        let dir = TemporaryDirectory()
        let recorder = TraceRecorder(capacity: 1 << 12, lttng: false)
        _ = try await DemoWorkload.run(instrument: recorder)
        let path = dir.file("race.tdtrace")
        try recorder.write(to: path)
        let writing = Atomic<Int>(4)
        let failures = Lock<[String]>([])
        let threads = (0..<4).map { _ in
            Thread {
                for _ in 0..<40 {
                    do { try recorder.write(to: path) } catch { failures.withLock { $0.append("\(error)") } }
                    do { try TraceFileWriter.write(recorder.snapshot(), to: path) } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                writing.wrappingAdd(-1, ordering: .releasing)
            }
        }
        threads.forEach { $0.start() }
        var reads = 0
        while writing.load(ordering: .acquiring) > 0 || reads == 0 {
            let trace = try TraceFileReader(path: path).readAll()
            #expect(trace.notes.isEmpty, "torn: \(trace.notes)")
            #expect(trace.events.count == 128)
            reads += 1
        }
        #expect(failures.withLock { $0 }.isEmpty)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    /// A storm of SIGUSR2 dumps up to exit: the final file is whole, and it is the exit dump.
    @Test func signalStormUpToExitLeavesAWholeFile() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("storm.tdtrace")
        let child = try startServingExample(path, in: dir)
        defer { kill(child.pid, SIGKILL) }
        kill(child.pid, TraceRecorder.dumpSignal)
        // The first dump has landed (renamed into place whole) before the storm.
        try await waitForFile(path)
        for _ in 0..<200 { kill(child.pid, TraceRecorder.dumpSignal) }
        close(child.input!)  // end of input: the example exits, dumping at exit
        for _ in 0..<50 { kill(child.pid, TraceRecorder.dumpSignal) }
        close(child.output)
        #expect(try Subprocess.wait(child.pid, timeout: 60, name: "TracedExample") == 0)
        let trace = try TraceFileReader(path: path).readAll()
        #expect(trace.notes.isEmpty)
        #expect(trace.events.contains { $0.kind == .runtimeStop })
        #expect(trace.counts.occasion == .atExit)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    /// `check` reads why a dump was written: a SIGUSR2 snapshot of a running process is checked
    /// as incomplete (and passes), unless `--complete`; its exit dump as a whole run.
    @Test func checkTellsASnapshotFromAWholeRun() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("snapshot.tdtrace")
        let child = try startServingExample(path, in: dir)
        defer { kill(child.pid, SIGKILL) }
        kill(child.pid, TraceRecorder.dumpSignal)
        try await waitForFile(path)
        #expect(try TraceFileReader(path: path).readAll().counts.occasion == .onSignal)
        let snapshot = try await traceView(["check", path])
        #expect(snapshot.status == 0, "\(snapshot.out)\(snapshot.err)")
        #expect(snapshot.out.contains("checked as an incomplete trace") && snapshot.out.contains("on SIGUSR2"), "\(snapshot.out)")
        let forced = try await traceView(["check", "--complete", path])
        #expect(forced.out.contains("checked as a whole run"), "\(forced.out)")
        let both = try await traceView(["check", "--complete", "--incomplete", path])
        #expect(both.status == 64)
        close(child.input!)
        close(child.output)
        #expect(try Subprocess.wait(child.pid, timeout: 60, name: "TracedExample") == 0)
        let exit = try await traceView(["check", path])
        #expect(exit.status == 0 && exit.out.contains("checked as a whole run"), "\(exit.out)")
    }

    /// A file cut anywhere keeps every chunk that ends before the cut.
    @Test func truncatedDumpKeepsEveryCompleteChunk() throws {
        var events: [TraceEvent] = []
        for i in 0..<5_000 {
            var e = TraceEvent(kind: .dispatch, time: UInt64(1_000 + i), thread: 1, runtime: 1)
            e.dispatch = UInt64(i + 1)
            e.label = "event-\(i % 37)"
            events.append(e)
        }
        let bytes = Trace(events: events).binaryBytes()
        // The oracle: walk the chunk headers, noting where each events chunk ends and how many
        // events the file holds up to there.
        var ends: [(end: Int, events: Int)] = []
        var offset = TraceFileFormat.headerSize
        var total = 0
        while offset + TraceFileFormat.chunkHeaderSize <= bytes.count {
            let tag = bytes[offset]
            let length = bytes.withUnsafeBytes { Int($0.le(offset + 4, as: UInt32.self)) }
            let end = offset + TraceFileFormat.chunkHeaderSize + length
            if tag == TraceFileFormat.Tag.events.rawValue {
                let count = bytes.withUnsafeBytes { Int($0.le(offset + TraceFileFormat.chunkHeaderSize, as: UInt32.self)) }
                #expect(count <= TraceFileFormat.eventsPerChunk)
                total += count
                ends.append((end, total))
            }
            offset = end
        }
        #expect(total == events.count)
        #expect(ends.count == (events.count + TraceFileFormat.eventsPerChunk - 1) / TraceFileFormat.eventsPerChunk)
        var cut = 997
        while cut < bytes.count {
            let trace = try TraceFileReader(bytes: Array(bytes.prefix(cut))).readAll()
            let expected = ends.last(where: { $0.end <= cut })?.events ?? 0
            #expect(trace.events.count == expected, "cut at \(cut)")
            #expect(trace.events == Array(events.prefix(expected)), "cut at \(cut)")
            #expect(!trace.notes.isEmpty, "cut at \(cut) must be reported")
            cut += 997
        }
    }
}
