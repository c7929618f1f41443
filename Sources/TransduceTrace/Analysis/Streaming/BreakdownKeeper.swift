/// One runtime's events kept for the breakdowns of its open requests, and what each of them reads
/// (``BreakdownReads``): past a thousand events, what no open request reads, no re-entry's window
/// could start at and no later join could reach back to is let go (the owner, who follows the
/// runtime's gate, says where those are). So a request whose window spans a long run keeps the
/// few dozen events its breakdown reads.
///
/// Kept events are in stream order (``KeptEvents``: packed, a deque whose front is dropped in
/// bulk).
struct BreakdownKeeper {
    /// What open requests read, followed once the keeper tracks (nil before: most runtimes of a
    /// trace of a runtime per connection never do). Behind a reference: the four tables and the
    /// count took 48 bytes of every runtime's state, 78,126 of them open at once.
    private final class Reads {
        /// The open requests' reads, by dispatch.
        var open: [UInt64: BreakdownReads] = [:]
        /// The open requests (their dispatches) that watch each id (``BreakdownReads/Watch``): an
        /// event goes to those alone, so a runtime with thousands open pays for the few that care.
        var byDispatch: [UInt64: [UInt64]] = [:]
        var byCycle: [UInt64: [UInt64]] = [:]
        var byTask: [UInt64: [UInt64]] = [:]
        /// Open requests with no reads followed (past ``maxOpen``): while there are any, nothing
        /// is let go but the front.
        var unfollowed = 0

        init() {}

        func copy() -> Reads {
            let copy = Reads()
            (copy.open, copy.byDispatch, copy.byCycle, copy.byTask) = (open, byDispatch, byCycle, byTask)
            copy.unfollowed = unfollowed
            return copy
        }
    }
    private var reads: Reads?
    /// The kept events, with their positions, ascending.
    private(set) var events = KeptEvents()
    /// When the kept events are let go of what nothing reads.
    private var compactAt = Self.firstCompaction
    static let firstCompaction = 1_024
    /// The most open requests whose reads are followed (a trace can leave any number waiting).
    static let maxOpen = 4_096
    /// Whether what open requests read is followed (and kept events let go of what none reads).
    var isTracking: Bool { reads != nil }

    /// A keeper that follows what its requests read from the start, or (not `tracking`) that
    /// keeps every event until ``startTracking(_:)``: a runtime that never keeps a thousand
    /// events at once (most, in a trace of a runtime per connection) pays nothing for it.
    init(tracking: Bool = true) {
        if tracking { reads = Reads() }
    }

    /// The reads, this keeper's own (a copy of the keeper shares them until one changes them).
    private mutating func ownReads() -> Reads? {
        guard reads != nil else { return nil }
        if !isKnownUniquelyReferenced(&reads) { reads = reads?.copy() }
        return reads
    }

    /// How many events are kept.
    var count: Int { events.count }

    /// Whether no request is open.
    var isIdle: Bool { reads.map { $0.open.isEmpty && $0.unfollowed == 0 } ?? true }

    /// Opens request `dispatch`, whose window starts at `first` (no earlier than the first kept
    /// event, and no later than the next one appended).
    mutating func open(_ dispatch: UInt64, first: Int) {
        guard let reads = ownReads(), reads.open[dispatch] == nil else { return }
        guard reads.open.count < Self.maxOpen else {
            reads.unfollowed += 1
            return
        }
        reads.open[dispatch] = BreakdownReads(dispatch: dispatch, first: first)
        reads.byDispatch[dispatch, default: []].append(dispatch)
    }

    /// Request `dispatch`'s window starts earlier: at `first` (the spawn of a task it joined).
    mutating func reachBack(_ dispatch: UInt64, to first: Int) {
        // Looked up first: a modify through `?.` gives even an empty table storage of its own
        // (17 MB in a trace of 78,126 runtimes, none followed).
        guard reads?.open[dispatch] != nil, let reads = ownReads() else { return }
        reads.open[dispatch]?.reachBack(to: first)
    }

    /// Closes request `dispatch`, handing over what it read (nil when its reads were not
    /// followed: it read everything from its first position).
    mutating func close(_ dispatch: UInt64) -> BreakdownReads? {
        guard let tables = ownReads() else { return nil }
        guard let reads = tables.open.removeValue(forKey: dispatch) else {
            tables.unfollowed = max(0, tables.unfollowed - 1)
            return nil
        }
        let watched = reads.watched
        for id in watched.dispatches { Self.unwatch(&tables.byDispatch, id, dispatch) }
        for id in watched.cycles { Self.unwatch(&tables.byCycle, id, dispatch) }
        for id in watched.tasks { Self.unwatch(&tables.byTask, id, dispatch) }
        return reads
    }

    private static func unwatch(_ map: inout [UInt64: [UInt64]], _ id: UInt64, _ window: UInt64) {
        guard let i = map[id]?.firstIndex(of: window) else { return }
        map[id]!.remove(at: i)
        if map[id]!.isEmpty { map[id] = nil }
    }

    /// Follows `e` (at `position`): hands it to the open requests that watch one of its ids and
    /// keeps it. `windowStart`: for a task's re-entry, where the window of an admission
    /// dispatched now starts (``RequestWindows``'s gate state before it takes the dispatch in).
    mutating func consume(_ e: TraceEvent, at position: Int, windowStart: Int?) {
        if isTracking { route(e, at: position, windowStart: windowStart) }
        events.append(e, at: position)
    }

    /// Starts following what `waiting` (open requests: their dispatches and where their windows
    /// start) read, from the events kept: each from its window's start, a re-entry's window
    /// where a gate followed from the first kept event puts it. (Every window of a request
    /// whose own starts after the first kept event starts after it too: the runtime's events are
    /// kept from the earliest position a window could start at.)
    mutating func startTracking(_ waiting: [(dispatch: UInt64, first: Int)]) {
        guard !isTracking else { return }
        reads = Reads()
        for w in waiting { open(w.dispatch, first: w.first) }
        var gate = RequestWindows.Runtime()
        for i in events.startIndex..<events.endIndex {
            let (position, e) = events[i]
            let start = e.isTaskReentry ? gate.windowStart(dispatchedAt: e.time, position: position) : nil
            route(e, at: position, windowStart: start)
            gate.follow(e, at: position)
        }
    }

    private mutating func route(_ e: TraceEvent, at position: Int, windowStart: Int?) {
        guard let reads = ownReads() else { return }
        switch e.kind {
        case .dispatch:
            Self.hand(e, at: position, to: reads.byDispatch[e.dispatch], windowStart, reads)
            if e.otherTask != 0 { Self.hand(e, at: position, to: reads.byTask[e.otherTask], windowStart, reads) }
        case .cycleEnter, .taskJoin, .requestResume, .traceContext:
            Self.hand(e, at: position, to: reads.byDispatch[e.dispatch], nil, reads)
        case .cycleLeave:
            Self.hand(e, at: position, to: reads.byCycle[e.cycle], nil, reads)
        case .taskSpawn:
            Self.hand(e, at: position, to: reads.byCycle[e.cycle], nil, reads)
            if e.otherTask != 0 { Self.hand(e, at: position, to: reads.byTask[e.otherTask], nil, reads) }
        case .taskCancel, .taskSettle:
            Self.hand(e, at: position, to: reads.byTask[e.task], nil, reads)
        default:
            break
        }
    }

    /// Whether enough was kept since the last compaction for another.
    var isDueForCompaction: Bool { count >= compactAt }

    private static func hand(_ e: TraceEvent, at position: Int, to windows: [UInt64]?, _ windowStart: Int?, _ reads: Reads) {
        guard let windows else { return }
        let start = windowStart ?? position
        for window in windows {
            guard let watch = reads.open[window]?.follow(e, at: position, windowStart: { start }) else { continue }
            if let id = watch.dispatch { reads.byDispatch[id, default: []].append(window) }
            if let id = watch.entered { unwatch(&reads.byDispatch, id, window) }
            if let id = watch.cycle { reads.byCycle[id, default: []].append(window) }
            if let id = watch.left { unwatch(&reads.byCycle, id, window) }
            if let id = watch.task { reads.byTask[id, default: []].append(window) }
        }
    }

    /// Lets go of the kept events that no open request reads, none from `lookback` on (where a
    /// re-entry's window could start) and none at `spawns` (live tasks' spawns, that a later
    /// join reaches back to); asked at most once per doubling (``isDueForCompaction``), so each
    /// event is looked at a bounded number of times. Returns how many it let go.
    mutating func compact(lookback: Int?, spawns: some Sequence<Int>) -> Int {
        let before = count
        defer { compactAt = max(Self.firstCompaction, 2 * count) }
        guard let reads, reads.unfollowed == 0 else { return 0 }
        var ranges = reads.open.values.flatMap(\.ranges)
        if let lookback { ranges.append(lookback...Int.max) }
        ranges += spawns.map { $0...$0 }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [ClosedRange<Int>] = []
        for r in ranges {
            if let last = merged.last, r.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        // Both ascending: one sweep.
        var i = 0
        events.removeAll { position in
            while i < merged.count, merged[i].upperBound < position { i += 1 }
            return i < merged.count && merged[i].contains(position)
        }
        return before - count
    }

    /// Lets go of the kept events before `position`; returns how many.
    mutating func drop(before position: Int) -> Int {
        let before = count
        events.removeFirst(upTo: firstIndex(atOrAfter: position))
        return before - count
    }

    /// Moves what is kept to storage of its own size (a trimmed array keeps the capacity of its
    /// longest run).
    mutating func shrink() { events.shrink() }

    /// The earliest position an open request reads.
    var earliestRead: Int? { reads?.open.values.lazy.map(\.earliest).min() }

    /// The index of the first kept event at or after `position` (binary search).
    func firstIndex(atOrAfter position: Int) -> Int { events.firstIndex(atOrAfter: position) }

    /// The kept events from `first` on that `reads` reads (every one when nil).
    func events(from first: Int, reading reads: BreakdownReads?) -> [(position: Int, event: TraceEvent)] {
        (firstIndex(atOrAfter: first)..<events.endIndex).compactMap { i in
            reads?.reads(events.position(at: i)) ?? true ? events[i] : nil
        }
    }
}
