import Dispatch
import Synchronization
import Transduce

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a recorder's slow-request trigger has done.
public struct SlowRequestDumpCounts: Sendable, Equatable {
    /// Requests that crossed the threshold.
    public var slowRequests: Int
    /// Dumps written.
    public var written: Int
    /// Slow requests that made no dump of their own: one was pending, or the last was too recent.
    public var suppressed: Int
    /// Dumps that could not be written (the directory is missing or full).
    public var failed: Int
}

/// Runs a recorder's slow-request dumps on a background queue.
final class SlowRequestDumper: Sendable {
    let trigger: SlowRequestTrigger
    private let queue = DispatchQueue(label: "transduce.slow-request-dumps", qos: .utility)
    private let pending = Atomic<Bool>(false)
    private let slow = Atomic<Int>(0)
    private let written = Atomic<Int>(0)
    private let suppressed = Atomic<Int>(0)
    private let failed = Atomic<Int>(0)
    /// Only the dump queue touches it.
    private let lastDump = Lock<UInt64?>(nil)
    /// The ring as a trace, given the dumper's counts so far.
    private let snapshot: @Sendable (SlowRequestDumpCounts) -> Trace?
    private let write: @Sendable (Trace, String) throws -> Void

    init(
        trigger: SlowRequestTrigger, snapshot: @escaping @Sendable (SlowRequestDumpCounts) -> Trace?,
        write: @escaping @Sendable (Trace, String) throws -> Void
    ) {
        self.trigger = trigger
        self.snapshot = snapshot
        self.write = write
    }

    var counts: SlowRequestDumpCounts {
        SlowRequestDumpCounts(
            slowRequests: slow.load(ordering: .relaxed), written: written.load(ordering: .relaxed),
            suppressed: suppressed.load(ordering: .relaxed), failed: failed.load(ordering: .relaxed))
    }

    /// On the recording thread, for a resume over the threshold: never blocks.
    func trip(runtime: UInt64, dispatch: UInt64) {
        slow.wrappingAdd(1, ordering: .relaxed)
        // One dump pending at a time: a burst of slow requests makes one, named for the first
        // (whose resume the ring held before the snapshot is taken).
        guard !pending.exchange(true, ordering: .acquiringAndReleasing) else {
            suppressed.wrappingAdd(1, ordering: .relaxed)
            return
        }
        queue.async { [self] in dump(runtime: runtime, dispatch: dispatch) }
    }

    private func dump(runtime: UInt64, dispatch: UInt64) {
        pending.store(false, ordering: .releasing)
        let now = MonotonicClock.now()
        let tooSoon = lastDump.withLock { last -> Bool in
            if let last, now - last < trigger.minimumInterval { return true }
            last = now
            return false
        }
        if tooSoon {
            suppressed.wrappingAdd(1, ordering: .relaxed)
            return
        }
        guard let trace = snapshot(counts) else { return }
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        let millis = UInt64(wall.tv_sec) * 1000 + UInt64(wall.tv_nsec) / 1_000_000
        let path = trigger.directory + "/slow-\(getpid())-\(millis)-r\(runtime)-d\(dispatch).tdtrace"
        Self.makeDirectory(trigger.directory)
        do {
            try write(trace, path)
            written.wrappingAdd(1, ordering: .relaxed)
        } catch {
            failed.wrappingAdd(1, ordering: .relaxed)
        }
    }

    /// Creates `directory` and the directories above it that are missing (what is there, or
    /// cannot be made, is left for the write to report).
    static func makeDirectory(_ directory: String) {
        var path = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o755) != 0, errno != EEXIST { return }
        }
    }

    /// Waits until the dumps asked for so far are done (for tests and orderly shutdown).
    func flush() { queue.sync {} }
}
