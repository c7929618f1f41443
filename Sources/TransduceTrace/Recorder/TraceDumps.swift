import Dispatch
import Transduce

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Dumping the ring buffer: from code, at process exit, and on a signal.
extension TraceRecorder {
    /// The environment variable that names the file a process dumps its trace to at exit.
    public static let environmentVariable = "TRANSDUCE_TRACE"
    /// The signal that makes a process dump its trace without stopping: `SIGUSR2`
    /// (`kill -USR2 <pid>`). SIGUSR1 is left to the application.
    public static let dumpSignal = SIGUSR2

    /// Writes a snapshot of the ring buffer to `path` (replaced atomically). The format follows the
    /// extension: `.jsonl` writes JSON Lines, anything else the binary format.
    public func write(to path: String, format: TraceFileWriter.Format? = nil) throws {
        let format = format ?? (path.hasSuffix(".jsonl") ? .jsonLines : .binary)
        try TraceFileWriter.write(snapshot(), to: path, format: format)
    }

    /// Dumps to `path` when the process exits normally (`exit`, or `main` returning).
    public func dumpAtExit(to path: String) {
        let first = DumpRegistry.exitDumps.withLock { dumps in
            dumps.append((self, path))
            return dumps.count == 1
        }
        if first { atexit { DumpRegistry.runExitDumps() } }
    }

    /// Dumps to `path` each time the process receives ``dumpSignal``. The dump runs on a
    /// dispatch queue, not in the signal handler.
    public func dumpOnSignal(to path: String, signal: Int32 = TraceRecorder.dumpSignal) {
        DumpRegistry.signalSources.withLock { sources in
            ignoreSignal(signal)
            let source = DispatchSource.makeSignalSource(signal: signal, queue: DispatchQueue(label: "transduce.trace.dump"))
            source.setEventHandler { [weak self] in
                guard let self else { return }
                do { try self.write(to: path) } catch { DumpRegistry.report(error) }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// When `TRANSDUCE_TRACE` names a file: creates a recorder, installs it as the default
    /// instrument of every host created afterwards, and dumps to that file at exit and on
    /// ``dumpSignal``. Returns the recorder, or `nil` when the variable is unset or empty.
    @discardableResult
    public static func bootstrapFromEnvironment(capacity: Int = 1 << 16) -> TraceRecorder? {
        guard let value = getenv(environmentVariable), value.pointee != 0 else { return nil }
        let path = String(cString: value)
        let recorder = TraceRecorder(capacity: capacity)
        RuntimeInstrumentation.bootstrap(recorder)
        recorder.dumpAtExit(to: path)
        recorder.dumpOnSignal(to: path)
        return recorder
    }
}

private func ignoreSignal(_ number: Int32) { _ = signal(number, SIG_IGN) }

enum DumpRegistry {
    static let exitDumps = Lock<[(TraceRecorder, String)]>([])
    static let signalSources = Lock<[any DispatchSourceSignal]>([])

    static func runExitDumps() {
        for (recorder, path) in exitDumps.withLock({ $0 }) {
            do { try recorder.write(to: path) } catch { report(error) }
        }
    }

    static func report(_ error: any Error) {
        let message = "transduce: trace dump failed: \(error)\n"
        var bytes = Array(message.utf8)
        _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    }
}
