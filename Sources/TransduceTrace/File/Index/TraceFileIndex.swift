/// Where things are in a binary trace file, found in one streaming pass (``build(reader:identity:each:)``)
/// and kept next to the trace (`TRACE.tdidx`, ``sidecarPath(of:)``) for later runs: places
/// reading can start again (an events chunk every ``interval`` events or so), the strings defined
/// before each, and for every runtime and stretch between two of them the dispatch ids it holds and the earliest event a view of one of them reads.
///
/// A view of one request (`trace-view sequence --request N`) asks it for a ``Plan``: where to
/// start reading and after which event the dispatch cannot appear any more. It then reads just
/// that stretch instead of the whole file, and draws exactly what a read of the whole file would:
/// the starting place is early enough for everything the request's lifecycle and latency window
/// reach back to (the cycle holding the gate when it came, the admissions queued before it, and
/// the tasks live then, which it may join or be requested from).
///
/// Size: 24 bytes per ``interval`` events and 40 per runtime that dispatched in them, plus the
/// trace's string table: 7 MB for a 100M-event trace of 16 runtimes.
package struct TraceFileIndex: Sendable, Equatable {
    /// Which file the index describes; an index whose identity differs from the file's is stale.
    package struct Identity: Sendable, Equatable {
        /// The file's size in bytes.
        package var size: UInt64
        /// Its modification time.
        package var seconds: Int64
        package var nanoseconds: Int64
        /// CRC-32 of its first and last MiB (the whole file when smaller): a file rewritten in
        /// place within one timestamp tick still differs.
        package var headChecksum: UInt32
        package var tailChecksum: UInt32

        package init(size: UInt64, seconds: Int64, nanoseconds: Int64, headChecksum: UInt32, tailChecksum: UInt32) {
            (self.size, self.seconds, self.nanoseconds) = (size, seconds, nanoseconds)
            (self.headChecksum, self.tailChecksum) = (headChecksum, tailChecksum)
        }
    }

    /// One runtime's dispatches between two checkpoints.
    package struct Span: Sendable, Equatable {
        /// Index into ``checkpoints`` of the stretch's start.
        package var checkpoint: Int
        /// The runtime (a ``RuntimeKey``).
        package var runtime: RuntimeKey
        /// The lowest and highest dispatch id it holds (ids of one runtime rise in time, but
        /// records of several threads can come slightly out of order).
        package var dispatches: ClosedRange<UInt64>
        /// The earliest event position a view of any of those dispatches reads.
        package var from: Int

        package init(checkpoint: Int, runtime: RuntimeKey, dispatches: ClosedRange<UInt64>, from: Int) {
            (self.checkpoint, self.runtime, self.dispatches, self.from) = (checkpoint, runtime, dispatches, from)
        }
    }

    package var identity: Identity
    /// Events in the file (up to the first damage).
    package var events: Int
    /// The earliest event time of the file, which views count times from.
    package var firstTime: UInt64?
    /// What the reading pass noted (damage, values no runtime writes): what a full read says.
    package var notes: [String]
    /// The file's strings by id (id 0 is the empty string).
    package var strings: [String]
    /// The host of each process.
    package var hosts: [UInt32: String]
    /// Where reading can start again, in file order.
    package var checkpoints: [TraceFileReader.Resume]
    /// Per stretch between checkpoints (in order) and runtime, its dispatches.
    package var spans: Spans
    /// One runtime of the file.
    package struct Runtime: Sendable, Equatable {
        /// Its key (``RuntimeKey``).
        package var key: RuntimeKey
        /// Its highest dispatch id (nil: it dispatched nothing).
        package var highestDispatch: UInt64?

        package init(key: RuntimeKey, highestDispatch: UInt64?) { (self.key, self.highestDispatch) = (key, highestDispatch) }
    }
    /// Every runtime of the file, in the order of their first events.
    package var runtimes: [Runtime]

    package init(
        identity: Identity, events: Int, firstTime: UInt64?, notes: [String], strings: [String],
        hosts: [UInt32: String], checkpoints: [TraceFileReader.Resume], spans: Spans, runtimes: [Runtime]
    ) {
        self.identity = identity
        self.events = events
        self.firstTime = firstTime
        self.notes = notes
        self.strings = strings
        self.hosts = hosts
        self.checkpoints = checkpoints
        self.spans = spans
        self.runtimes = runtimes
    }

    /// How to read one dispatch's view.
    package struct Plan: Sendable, Equatable {
        /// The runtimes that may hold the dispatch (those with a stretch whose ids span it).
        package var runtimes: [RuntimeKey]
        /// Where to start reading (nil: no runtime may hold it).
        package var start: TraceFileReader.Resume?
        /// The dispatch cannot appear after this many events of the file.
        package var through: Int
        /// The highest dispatch id of the runtimes asked about (for the error when none has it).
        package var highestDispatch: UInt64?
    }

    /// Where dispatch #`dispatch` of the runtimes `admits` accepts can be, and where its view
    /// starts reading.
    package func plan(dispatch: UInt64, admits: (RuntimeKey) -> Bool) -> Plan {
        var runtimes: [RuntimeKey] = []
        // A set beside the array: with tens of thousands of runtimes holding the id, a search of
        // the array per span took 20 s at 10M events in 78,126 runtimes.
        var named = Set<RuntimeKey>()
        var from = Int.max
        var lastChunk = -1
        for span in spans where span.dispatches.contains(dispatch) && admits(span.runtime) {
            if named.insert(span.runtime).inserted { runtimes.append(span.runtime) }
            from = min(from, span.from)
            lastChunk = max(lastChunk, span.checkpoint)
        }
        var highest: UInt64?
        for case let runtime in self.runtimes where admits(runtime.key) {
            if let top = runtime.highestDispatch { highest = max(highest ?? top, top) }
        }
        guard lastChunk >= 0 else { return Plan(runtimes: [], start: nil, through: 0, highestDispatch: highest) }
        // The last checkpoint at or before `from`: checkpoints rise in position.
        let low = max(0, checkpoints.partitionPoint { $0.position > from } - 1)
        let through = lastChunk + 1 < checkpoints.count ? checkpoints[lastChunk + 1].position : events
        return Plan(runtimes: runtimes, start: checkpoints[low], through: through, highestDispatch: highest)
    }

    /// A reader of `path` (the file this index describes) from `start` on.
    package func reader(path: String, from start: TraceFileReader.Resume) throws -> TraceFileReader {
        try TraceFileReader(path: path, resumingAt: start, strings: strings, hosts: hosts)
    }

    /// Events between two places to start again, at least: a view of one request reads at most
    /// this many more than it draws (a few milliseconds), and the index stays small.
    package static let interval = 8_192

    /// Where the index of the trace at `path` is kept.
    package static func sidecarPath(of path: String) -> String { path + ".tdidx" }
}
