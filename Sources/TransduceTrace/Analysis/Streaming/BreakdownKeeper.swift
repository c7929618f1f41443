/// One runtime's events kept for the breakdowns of its open requests, and what each of them reads
/// (``BreakdownReads``): past a thousand events, what no open request reads, no re-entry's window
/// could start at and no later join could reach back to is let go (the owner, who follows the
/// runtime's gate, says where those are). So a request whose window spans a long run keeps the
/// few dozen events its breakdown reads.
///
/// Kept events are in stream order from `head` on (what is before it is let go: a deque whose
/// front is dropped in bulk).
struct BreakdownKeeper {
    /// The open requests' reads, by dispatch.
    private(set) var open: [UInt64: BreakdownReads] = [:]
    /// The open requests (their dispatches) that watch each id (``BreakdownReads/Watch``): an
    /// event goes to those alone, so a runtime with thousands open pays for the few that care.
    private var byDispatch: [UInt64: [UInt64]] = [:]
    private var byCycle: [UInt64: [UInt64]] = [:]
    private var byTask: [UInt64: [UInt64]] = [:]
    /// The kept events, with their positions, ascending from `head` (``KeptEvent``: compact,
    /// their runtime and process the keeper's).
    private(set) var events: [KeptEvent] = []
    /// The runtime and process of every event kept (from the first).
    private var runtime: UInt64 = 0
    private var process: UInt32 = 0
    private(set) var head = 0
    /// When the kept events are let go of what nothing reads.
    private var compactAt = Self.firstCompaction
    static let firstCompaction = 1_024
    /// Open requests with no reads followed (past ``maxOpen``): while there are any, nothing is
    /// let go but the front.
    private var unfollowed = 0
    /// The most open requests whose reads are followed (a trace can leave any number waiting).
    static let maxOpen = 4_096
    /// Whether what open requests read is followed (and kept events let go of what none reads).
    private(set) var isTracking: Bool

    /// A keeper that follows what its requests read from the start, or (not `tracking`) that
    /// keeps every event until ``startTracking(_:)``: a runtime that never keeps a thousand
    /// events at once (most, in a trace of a runtime per connection) pays nothing for it.
    init(tracking: Bool = true) {
        isTracking = tracking
    }

    /// How many events are kept.
    var count: Int { events.count - head }

    /// Whether no request is open.
    var isIdle: Bool { open.isEmpty && unfollowed == 0 }

    /// Opens request `dispatch`, whose window starts at `first` (no earlier than the first kept
    /// event, and no later than the next one appended).
    mutating func open(_ dispatch: UInt64, first: Int) {
        guard isTracking, open[dispatch] == nil else { return }
        guard open.count < Self.maxOpen else {
            unfollowed += 1
            return
        }
        open[dispatch] = BreakdownReads(dispatch: dispatch, first: first)
        byDispatch[dispatch, default: []].append(dispatch)
    }

    /// Request `dispatch`'s window starts earlier: at `first` (the spawn of a task it joined).
    mutating func reachBack(_ dispatch: UInt64, to first: Int) {
        // Looked up first: a modify through `?.` gives even an empty table storage of its own
        // (17 MB in a trace of 78,126 runtimes, none followed).
        guard open[dispatch] != nil else { return }
        open[dispatch]?.reachBack(to: first)
    }

    /// Closes request `dispatch`, handing over what it read (nil when its reads were not
    /// followed: it read everything from its first position).
    mutating func close(_ dispatch: UInt64) -> BreakdownReads? {
        guard let reads = open.removeValue(forKey: dispatch) else {
            unfollowed = max(0, unfollowed - 1)
            return nil
        }
        let watched = reads.watched
        for id in watched.dispatches { Self.unwatch(&byDispatch, id, dispatch) }
        for id in watched.cycles { Self.unwatch(&byCycle, id, dispatch) }
        for id in watched.tasks { Self.unwatch(&byTask, id, dispatch) }
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
        if events.isEmpty { (runtime, process) = (e.runtime, e.process) }
        events.append(KeptEvent(e, at: position))
    }

    /// Starts following what `waiting` (open requests: their dispatches and where their windows
    /// start) read, from the events kept: each from its window's start, a re-entry's window
    /// where a gate followed from the first kept event puts it. (Every window of a request
    /// whose own starts after the first kept event starts after it too: the runtime's events are
    /// kept from the earliest position a window could start at.)
    mutating func startTracking(_ waiting: [(dispatch: UInt64, first: Int)]) {
        guard !isTracking else { return }
        isTracking = true
        for w in waiting { open(w.dispatch, first: w.first) }
        var gate = RequestWindows.Runtime()
        for kept in events[head...] {
            let (position, e) = (kept.position, kept.event(runtime: runtime, process: process))
            let start = e.isTaskReentry ? gate.windowStart(dispatchedAt: e.time, position: position) : nil
            route(e, at: position, windowStart: start)
            gate.follow(e, at: position)
        }
    }

    private mutating func route(_ e: TraceEvent, at position: Int, windowStart: Int?) {
        switch e.kind {
        case .dispatch:
            hand(e, at: position, to: byDispatch[e.dispatch], windowStart)
            if e.otherTask != 0 { hand(e, at: position, to: byTask[e.otherTask], windowStart) }
        case .cycleEnter, .taskJoin, .requestResume, .traceContext:
            hand(e, at: position, to: byDispatch[e.dispatch], nil)
        case .cycleLeave:
            hand(e, at: position, to: byCycle[e.cycle], nil)
        case .taskSpawn:
            hand(e, at: position, to: byCycle[e.cycle], nil)
            if e.otherTask != 0 { hand(e, at: position, to: byTask[e.otherTask], nil) }
        case .taskCancel, .taskSettle:
            hand(e, at: position, to: byTask[e.task], nil)
        default:
            break
        }
    }

    /// Whether enough was kept since the last compaction for another.
    var isDueForCompaction: Bool { count >= compactAt }

    private mutating func hand(_ e: TraceEvent, at position: Int, to windows: [UInt64]?, _ windowStart: Int?) {
        guard let windows else { return }
        let start = windowStart ?? position
        for window in windows {
            guard let watch = open[window]?.follow(e, at: position, windowStart: { start }) else { continue }
            if let id = watch.dispatch { byDispatch[id, default: []].append(window) }
            if let id = watch.entered { Self.unwatch(&byDispatch, id, window) }
            if let id = watch.cycle { byCycle[id, default: []].append(window) }
            if let id = watch.left { Self.unwatch(&byCycle, id, window) }
            if let id = watch.task { byTask[id, default: []].append(window) }
        }
    }

    /// Lets go of the kept events that no open request reads, none from `lookback` on (where a
    /// re-entry's window could start) and none at `spawns` (live tasks' spawns, that a later
    /// join reaches back to); asked at most once per doubling (``isDueForCompaction``), so each
    /// event is looked at a bounded number of times. Returns how many it let go.
    mutating func compact(lookback: Int?, spawns: some Sequence<Int>) -> Int {
        let before = count
        defer { compactAt = max(Self.firstCompaction, 2 * count) }
        guard isTracking, unfollowed == 0 else { return 0 }
        var ranges = open.values.flatMap(\.ranges)
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
        var kept: [KeptEvent] = []
        for item in events[head...] {
            while i < merged.count, merged[i].upperBound < item.position { i += 1 }
            if i < merged.count && merged[i].contains(item.position) { kept.append(item) }
        }
        events = kept
        head = 0
        return before - count
    }

    /// Lets go of the kept events before `position`; returns how many.
    mutating func drop(before position: Int) -> Int {
        let cut = firstIndex(atOrAfter: position)
        let dropped = cut - head
        head = cut
        // The dropped ones' memory goes once they are more than half (each element is moved at
        // most once per halving), or all of them.
        if head == events.count {
            events = []
            head = 0
        } else if head >= 64 && head * 2 > events.count {
            events.removeFirst(head)
            head = 0
        }
        return dropped
    }

    /// Moves what is kept to storage of its own size (a trimmed array keeps the capacity of its
    /// longest run).
    mutating func shrink() {
        guard head > 0 || events.capacity > 2 * events.count + 16 else { return }
        events = Array(events[head...])
        head = 0
    }

    /// The earliest position an open request reads.
    var earliestRead: Int? { open.values.lazy.map(\.earliest).min() }

    /// The index of the first kept event at or after `position` (binary search).
    func firstIndex(atOrAfter position: Int) -> Int {
        events[head...].partitionPoint { $0.position >= position }
    }

    /// The kept events from `first` on that `reads` reads (every one when nil).
    func events(from first: Int, reading reads: BreakdownReads?) -> [(position: Int, event: TraceEvent)] {
        events[firstIndex(atOrAfter: first)...].lazy.filter { reads?.reads($0.position) ?? true }.map {
            ($0.position, $0.event(runtime: runtime, process: process))
        }
    }
}
