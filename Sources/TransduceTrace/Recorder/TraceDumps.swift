import CTraceRing
import Dispatch
import Transduce

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Dumping the ring buffer: from code, at process exit, on a signal, and when the process is
/// ended by a signal or crashes.
///
/// Which endings keep a trace (with ``bootstrapFromEnvironment(capacity:)``, which sets up all):
/// - `exit`, `main` returning: the exit dump (``dumpAtExit(to:)``), labels and payloads whole.
/// - SIGINT (Ctrl-C), SIGTERM (systemd, container stop), SIGHUP, where the application has not
///   set its own handling: the signal dump (``dumpOnTermination(to:)``), then the process ends
///   with that same signal. Payloads are not in it.
/// - A crash — a Swift trap (also an error thrown out of `main`), SIGSEGV, SIGBUS, SIGILL,
///   SIGTRAP, SIGABRT, SIGFPE: the same signal dump, best effort, before the previous handler
///   (the Swift backtracer's) runs.
/// - SIGKILL, the OOM killer, power loss: nothing (no code runs); use LTTng for those.
///
/// Every dump of one path replaces the file atomically, so it always holds one whole dump: the
/// newest. Dumps from code, on ``dumpSignal`` and at exit run one at a time, so the exit dump,
/// which is the last, wins.
extension TraceRecorder {
    /// The environment variable that names the file a process dumps its trace to at exit.
    public static let environmentVariable = "TRANSDUCE_TRACE"
    /// The signal that makes a process dump its trace without stopping: `SIGUSR2`
    /// (`kill -USR2 <pid>`). SIGUSR1 is left to the application.
    public static let dumpSignal = SIGUSR2

    /// Writes a snapshot of the ring buffer to `path` (replaced atomically). The format follows the
    /// extension: `.jsonl` writes JSON Lines, anything else the binary format. The dump says it was
    /// written by the app's call (``TraceCounts/Occasion/byCode``): `trace-view check` checks it as
    /// a whole run unless told it is partial.
    public func write(to path: String, format: TraceFileWriter.Format? = nil) throws {
        // One dump at a time: the snapshot taken last is renamed into place last.
        try DumpRegistry.writing.withLock { _ in try writeHoldingTheDumpLock(to: path, format: format, occasion: .byCode) }
    }

    /// Writes a snapshot saying `occasion`; the caller holds ``DumpRegistry/writing``.
    fileprivate func writeHoldingTheDumpLock(
        to path: String, format: TraceFileWriter.Format? = nil, occasion: TraceCounts.Occasion
    ) throws {
        let format = format ?? (path.hasSuffix(".jsonl") ? .jsonLines : .binary)
        switch format {
        case .binary:
            // Streamed from the ring: the dump's memory is one chunk, not a copy of the ring.
            try TraceFileWriter.write(to: path) { sink in
                reader.encodeSnapshot(occasion: occasion, slowRequests: slowDumper?.counts, into: sink)
            }
        case .jsonLines:
            try TraceFileWriter.write(
                reader.snapshot(occasion: occasion, slowRequests: slowDumper?.counts), to: path, format: format)
        }
    }

    /// A ``dumpSignal`` dump: skipped once the exit dumps have run (the process is ending, and a
    /// dump started now could be cut off, leaving its temporary file, or replace the exit dump).
    func writeOnSignal(to path: String) throws {
        try DumpRegistry.writing.withLock { exited in
            guard !exited else { return }
            try writeHoldingTheDumpLock(to: path, occasion: .onSignal)
        }
    }

    /// Dumps to `path` (binary format) when the process is ended by SIGINT, SIGTERM or SIGHUP —
    /// each only where its disposition is still the default, so an application's own handling
    /// wins — and, best effort, when it crashes. The dump is written from the signal handler by
    /// an async-signal-safe writer (no allocation, no locks); afterwards a termination signal
    /// ends the process with the same signal, and a crash goes on to the handler that was there
    /// before. One recorder per process: a later call replaces the earlier one.
    ///
    /// - Returns: the signals that now dump.
    @discardableResult
    public func dumpOnTermination(to path: String) -> [Int32] {
        // Resolved now, where it is safe to ask: the handler can then only rename onto a regular
        // file's path (a link's target, so the link stays) or write a FIFO or device in place.
        let destination: FileDestination
        do {
            destination = try FileDestination.resolve(path)
        } catch {
            DumpRegistry.report("trace dump on termination disabled: \(path): \(error.reason)")
            return []
        }
        let (target, direct): (String, Int32) =
            switch destination {
            case .atomic(let final): (final, 0)
            case .direct(let path): (path, 1)
            }
        guard
            clttng_signal_dump_configure(
                ring.slotMemory, UInt64(ring.capacity), UInt64(ring.lanes.count), labels.mirror, target, direct) != 0
        else {
            DumpRegistry.report("trace dump failed: no memory for the signal dump")
            return []
        }
        let mask = clttng_signal_dump_install(1, 1)
        return (1..<64).filter { mask & (1 << UInt64($0)) != 0 }.map(Int32.init)
    }

    /// Dumps to `path` when the process exits normally (`exit`, or `main` returning).
    public func dumpAtExit(to path: String) {
        let first = DumpRegistry.exitDumps.withLock { dumps in
            dumps.append((self, path))
            return dumps.count == 1
        }
        if first { atexit { DumpRegistry.runExitDumps() } }
    }

    /// Dumps to `path` each time the process receives ``dumpSignal``, whenever it is called
    /// (threads already running included). The dump runs on a dispatch queue, not in the signal
    /// handler: the handler only writes a byte to a pipe that queue reads, and signals that
    /// arrive during a dump make one more dump, not one each.
    public func dumpOnSignal(to path: String, signal: Int32 = TraceRecorder.dumpSignal) {
        DumpRegistry.signalDumps.withLock { registry in
            registry.dumps[signal, default: []].append((WeakRecorder(self), path))
            guard registry.sources[signal] == nil else { return }
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else {
                DumpRegistry.report("cannot make the pipe of the dump signal: errno \(errno)")
                return
            }
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(ends[0], F_SETFL, O_NONBLOCK)
            _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
            let reader = ends[0]
            let source = DispatchSource.makeReadSource(
                fileDescriptor: reader, queue: DispatchQueue(label: "transduce.trace.dump"))
            source.setEventHandler {
                // Every signal so far, one dump.
                var bytes = [UInt8](repeating: 0, count: 64)
                while read(reader, &bytes, bytes.count) > 0 {}
                let dumps = DumpRegistry.signalDumps.withLock { $0.dumps[signal] ?? [] }
                for (recorder, path) in dumps {
                    guard let recorder = recorder.recorder else { continue }
                    do { try recorder.writeOnSignal(to: path) } catch { DumpRegistry.report(error) }
                }
            }
            source.resume()
            registry.sources[signal] = source
            if clttng_signal_notify_install(signal, ends[1]) == 0 {
                DumpRegistry.report("cannot handle signal \(signal): errno \(errno)")
            }
        }
    }

    /// When `TRANSDUCE_TRACE` names a file: creates a recorder, installs it as the default
    /// instrument of every host created afterwards, and dumps to that file at exit, on
    /// ``dumpSignal``, on SIGINT/SIGTERM/SIGHUP and on a crash (see the list above). When
    /// `TRANSDUCE_SLOW` gives a threshold (`50ms`), the recorder also dumps a slow request's
    /// window (``SlowRequestTrigger/fromEnvironment()``), with or without `TRANSDUCE_TRACE`.
    /// Returns the recorder, or `nil` when neither variable is set.
    ///
    /// - Parameter capacity: ring-buffer events in all; each runtime keeps about
    ///   `capacity ÷ lanes` of its newest (a quarter on a 2-core machine, a sixteenth on an
    ///   8-core one: ``TraceRecorder/init(capacity:mode:lttng:payloads:ringEnabled:slowRequests:lanes:)``).
    @discardableResult
    public static func bootstrapFromEnvironment(capacity: Int = 1 << 16) -> TraceRecorder? {
        let path = getenv(environmentVariable).flatMap { $0.pointee == 0 ? nil : String(cString: $0) }
        let slow = SlowRequestTrigger.fromEnvironment()
        guard path != nil || slow != nil else { return nil }
        let recorder = TraceRecorder(capacity: capacity, slowRequests: slow)
        RuntimeInstrumentation.bootstrap(recorder)
        if slow != nil {
            // A slow request's dump still on its queue is finished before the process ends.
            DumpRegistry.slowDumpers.withLock { $0.append(recorder) }
            atexit { for recorder in DumpRegistry.slowDumpers.withLock({ $0 }) { recorder.flushSlowRequestDumps() } }
        }
        if let path {
            recorder.dumpAtExit(to: path)
            recorder.dumpOnSignal(to: path)
            recorder.dumpOnTermination(to: path)
        }
        return recorder
    }
}

/// A recorder a signal dumps, held weakly: the dump never keeps a recorder alive.
struct WeakRecorder: @unchecked Sendable {  // `weak` is read-only after init
    weak var recorder: TraceRecorder?
    init(_ recorder: TraceRecorder) { self.recorder = recorder }
}

enum DumpRegistry {
    static let exitDumps = Lock<[(TraceRecorder, String)]>([])
    /// Per signal: the pipe's read source (one per signal) and the dumps it makes.
    static let signalDumps = Lock<(sources: [Int32: any DispatchSourceRead], dumps: [Int32: [(WeakRecorder, String)]])>(
        ([:], [:]))
    /// Recorders whose slow-request dumps are flushed at exit.
    static let slowDumpers = Lock<[TraceRecorder]>([])
    /// Serializes dumps from Swift code (the signal-handler dump cannot take a lock).
    /// `true` once the exit dumps have run.
    static let writing = Lock(false)

    /// The exit dumps, and no signal dump after them: under one hold of the lock (set only after
    /// the dumps, the flag once let a SIGUSR2 dump that waited for the lock replace the exit dump).
    static func runExitDumps() {
        writing.withLock { exited in
            for (recorder, path) in exitDumps.withLock({ $0 }) {
                do { try recorder.writeHoldingTheDumpLock(to: path, occasion: .atExit) } catch { report(error) }
            }
            exited = true
        }
    }

    static func report(_ error: any Error) { report("trace dump failed: \(error)") }

    static func report(_ error: String) {
        let message = "transduce: \(error)\n"
        var bytes = Array(message.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}
