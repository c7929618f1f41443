import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The events a view reads, pass after pass, whatever TRACE is: the one place that decides how
/// a view reads its input, and that keeps what the reading learnt (the notes, the recorder's
/// counts, the hosts, the index).
///
/// - A trace file (a regular file in the binary format) is read again for each pass; a view that
///   seeks gets its index (the one kept beside it, else one built in a pass of its own before
///   the view's, or along its first, and kept).
/// - Anything else (standard input, a pipe, a CTF directory, a JSON Lines file) is read once. A
///   view of one pass reads it as it comes; a view of several reads it into a temporary binary
///   copy (``TraceCopy``) in that one read, and its passes read the copy, indexed in the first.
///   LTTng's CTF is decoded once, and a pipe is never held.
/// - A view that holds the trace (``hold()``) reads it once, into memory, up to
///   ``TraceInput/holdLimit`` events.
///
/// Every pass hands over the events the command's selection (`--runtime`, `--pid`) keeps; the
/// first checks that the selection matched (status 66 when it did not).
package final class TraceSource {
    /// How a view reads.
    package enum Access {
        /// One pass.
        case once
        /// Passes, as many as the view needs.
        case passes
        /// Passes, and stretches of the file through its index (``index``). A trace file with no
        /// index kept is indexed in a pass of its own before the view's first, and the index is
        /// kept beside it and read back when asked for: built along the view's first pass, the
        /// builder's state stood on top of the view's (the first `report` of 10M events in
        /// 78,126 runtimes peaked at 291 MB, against 193 MB with an index kept).
        case seeks
        /// As ``seeks``, the index built along the view's first pass instead, at the memory of
        /// both: for a view that shows what it reads as it reads it (the terminal UI's first
        /// rows come in a fraction of a second; an index pass first takes seconds at 10M events).
        case seeksIndexingAlong

        /// Whether the view reads stretches of the file through its index.
        var seeksIndex: Bool { self == .seeks || self == .seeksIndexingAlong }
    }

    /// TRACE as given.
    package let path: String
    /// The input's kind.
    package var kind: TraceInput.Kind { input.kind }
    /// The name views show for the input: its last path component, or "standard input".
    package var name: String { Self.name(of: path) }

    /// The name views show for the input at `path` (``name``), before it is opened.
    package static func name(of path: String) -> String {
        path == "-" ? "standard input" : (path.split(separator: "/").last.map(String.init) ?? path)
    }

    /// The selection of the first pass: how many events it matched, once read.
    package var selection: Selection

    /// The input's notes (damage, values no runtime writes), known after the first pass.
    package private(set) var notes: [String] = []
    /// The recorder's counts, if the input has them, known after the first pass.
    package private(set) var counts: TraceCounts?
    /// The host of each process, known after the first pass.
    package private(set) var hosts: [UInt32: String] = [:]
    /// Whether the tracer lost events in a number it did not say, known after the first pass.
    package private(set) var lossesUnknown = false
    /// The earliest time of all the events (selected or not), known after the first pass:
    /// views count times from it.
    package private(set) var firstTime: UInt64?
    /// The index of the file the passes read, for a source that ``Access/seeks`` (after the
    /// first pass, or ``seekIndex()``); nil when it could not be made. A trace file's kept index
    /// is loaded when first asked for, after the passes that do not need it: at 10M events in
    /// 78,126 runtimes it is 44 MB, that `report` held through its passes for nothing.
    package var index: TraceFileIndex? {
        if let madeIndex { return madeIndex }
        guard access.seeksIndex, passes > 0, readsInPlace else { return nil }
        return kept(keeping: true)
    }
    /// The index built in a pass, or found by ``seekIndex()``.
    private var madeIndex: TraceFileIndex?
    /// How many passes have been read, and how many of them read the input itself (the rest
    /// read its copy).
    package private(set) var passes = 0
    package private(set) var inputReads = 0
    /// Whether the input was read once more, in a pass of its own, to index it (``Access/seeks``).
    private var indexedApart = false
    /// The events the pass under way has read so far, selected or not (counted in steps of
    /// 16,384 while it reads, exactly at its end).
    package private(set) var read: UInt64 = 0

    private let input: TraceInput
    private let access: Access
    /// The selection as the arguments give it, before any event: each later pass starts from it.
    private let freshSelection: Selection
    private var copy: TraceCopy?
    /// The input of the later pass under way (``endPass()``).
    private var later: TraceInput?
    /// The runtimes the later passes hand over (``follow(_:)``).
    private var following = RuntimeGroup.all
    /// Each group's events apart, once a pass followed a group of several (``follow(_:)``).
    private var groupCopies: [TraceCopy] = []
    /// Whether the pass that copies each group's events apart still hands them to its view
    /// (``endPass()`` ends only that: the copies are made whole).
    private var handsGroup = false
    private let progress = Progress()

    /// Events the passes read in all, selected or not (a pass that ended early, its part).
    private var eventsRead: UInt64 = 0

    /// A test hook: with `TRACE_VIEW_SAY_READS` set, a source says on standard error, when the
    /// view is done with it, how many passes its view read, how many times it read the input
    /// itself and how many events they read (`trace-view: reads: 3 passes, 1 of the input, 52000
    /// events`).
    static let saysReads = getenv("TRACE_VIEW_SAY_READS") != nil

    deinit {
        if Self.saysReads {
            StandardError.line(
                "trace-view: reads: \(passes) pass\(passes == 1 ? "" : "es"), \(inputReads) of the input, \(eventsRead) events"
                    + (indexedApart ? ", and the input once more to index it" : ""))
        }
    }

    /// Opens `path` (a trace file, a JSON Lines file, an LTTng CTF directory, `-` for standard
    /// input) for a view that reads as `access` says, its passes handing over what `selection`
    /// keeps; with `allProcesses`, a trace `trace-view record` kept is read whole, not only its
    /// command's processes. Throws ``CLIError`` (with its exit status) when it cannot be opened.
    package init(path file: String, selection: Selection, allProcesses: Bool = false, access: Access) throws {
        input = try TraceInput(path: file, allProcesses: allProcesses)
        path = input.path
        self.selection = selection
        freshSelection = selection
        self.access = access
    }

    /// Whether the passes read the input itself: a trace file, read again for each.
    private var readsInPlace: Bool { input.kind == .binary && input.rereadable }

    /// Whether the first pass copies the input before it reads (``TraceCopy``).
    package var copies: Bool { access != .once && !readsInPlace }

    /// How many events the input had, once it is copied.
    package var copiedEvents: Int? { copy.map { Int($0.events) } }

    /// How many events the first pass will read, when known before it: the count of the trace
    /// file's kept index.
    package var knownEvents: Int? { kept(keeping: true)?.events }

    /// The index kept beside a trace file, when it can be trusted (read, checked and decoded:
    /// tens of MB at 10M events). Looked up once and kept when `keeping` (for ``knownEvents``,
    /// the first pass and ``index`` alike); else only whether there is one is kept, and it is
    /// looked up again when asked for (a second look costs a fraction of a pass).
    private func kept(keeping: Bool) -> TraceFileIndex? {
        switch keptLookup {
        case .held(let index): return index
        case .missing: return nil
        case .unknown: break
        }
        guard readsInPlace, let identity = TraceFileIndex.identity(of: path),
            let found = TraceInput.keptIndex(of: path, identity: identity)
        else {
            keptLookup = .missing
            return nil
        }
        if keeping { keptLookup = .held(found) }
        return found
    }
    /// What is known of the kept index: not looked up yet (or found and not kept: looked up
    /// again when asked for), not there (or not trusted), or held.
    private enum KeptLookup {
        case unknown, missing
        case held(TraceFileIndex)
    }
    private var keptLookup = KeptLookup.unknown

    /// The file every pass reads, and that the index (``index``) reads stretches of: the trace
    /// file, or its copy. Nil before the first pass, and for a source read once.
    package var passPath: String? {
        if readsInPlace && access != .once { return path }
        return copy?.path
    }

    /// One pass: hands `body` every event the selection keeps, in the input's order. The first
    /// reads the input (and, for several passes of anything but a trace file, copies it first),
    /// and throws when the selection matched none of it.
    package func pass(_ body: (TraceEvent) -> Void) throws {
        precondition(passes == 0 || access != .once, "a source of one pass read twice")
        let number = passes
        passes += 1
        read = 0
        // The pass keeps its state in a local value, put back at its end, and each reader gets
        // a closure written in place: a property of this class changed once an event, or a
        // closure kept in a variable (its captures boxed), costs an exclusivity check an event
        // (the pass took 1.4 times as long).
        var step = Step(selection: number == 0 ? selection : freshSelection)
        defer {
            read = step.count
            eventsRead += step.count
        }
        guard number == 0 else {
            if following.count > 1 { return try passOfGroup(number, &step, body) }
            if copy == nil { inputReads += 1 }
            return try laterPass(number, of: passPath!, &step, body)
        }
        if readsInPlace || access == .once {
            inputReads += 1
            let indexes = access.seeksIndex && kept(keeping: false) == nil
            if indexes && access == .seeksIndexingAlong {
                // No index kept: built in this same pass, and kept for later runs.
                (notes, counts, madeIndex) = try input.forEachIndexing(progress: progress) { e in
                    if step.admits(e) { body(e) }
                    if step.due { read = step.count }
                }
            } else {
                if indexes { try indexApart() }
                (notes, counts) = try handing(input, progress, &step, body)
            }
            firstTime = step.earliest
            hosts = input.hosts
            lossesUnknown = input.lossesUnknown
        } else {
            try makeCopy()
            let copied = try reading(copy!.path)
            if access.seeksIndex {
                madeIndex = try copied.forEachIndexing(progress: progressOfPass(number), keepsIndex: false) { e in
                    if step.admits(e) { body(e) }
                    if step.due { read = step.count }
                }.index
            } else {
                try handing(copied, progressOfPass(number), &step, body)
            }
        }
        selection = step.selection
        try selection.check()
    }

    /// From the next pass on, hands over only the events of `group`'s runtimes (until told
    /// ``RuntimeGroup/all`` again): for a view whose passes each follow one group of runtimes
    /// (``BreakdownPasses``). The first such pass reads the trace once more, as a pass does, and
    /// copies each group's events apart (``TraceCopy``: as much room as a copy of the trace);
    /// the later ones read their group's copy alone, so that a pass over a group of many costs
    /// its group's events, not the trace's (at 100M events in 16 groups, most of the CPU was
    /// reading the events of the groups a pass did not follow).
    package func follow(_ group: RuntimeGroup) {
        precondition(passes > 0 || group.count == 1, "a group of runtimes is followed after the first pass")
        following = group
    }

    /// Later pass `number` of `file` (the input, its copy, or a group's copy), which
    /// ``endPass()`` can end.
    private func laterPass(_ number: Int, of file: String, _ step: inout Step, _ body: (TraceEvent) -> Void) throws {
        let again = try reading(file)
        later = again
        defer { later = nil }
        try handing(again, progressOfPass(number), &step, body)
    }

    /// Reads `input`, handing `body` the events the pass keeps.
    @discardableResult
    private func handing(_ input: TraceInput, _ progress: Progress?, _ step: inout Step, _ body: (TraceEvent) -> Void)
        throws -> (notes: [String], counts: TraceCounts?)
    {
        var pass = PassFilter(step: step, source: self)
        defer { step = pass.step }
        return try input.forEach(progress: progress, admitting: &pass, body)
    }

    /// What a pass keeps of the events it reads (``pass(_:)``).
    private struct PassFilter: EventFilter {
        var step: Step
        unowned let source: TraceSource

        mutating func admits(_ e: TraceEvent) -> Bool {
            let kept = step.admits(e)
            if step.due { source.read = step.count }
            return kept
        }
    }

    /// A later pass of one group of several (``follow(_:)``).
    private func passOfGroup(_ number: Int, _ step: inout Step, _ body: (TraceEvent) -> Void) throws {
        let group = following
        if groupCopies.count == group.count { return try laterPass(number, of: groupCopies[group.index].path, &step, body) }
        // The first pass of a group: reads every event once more, each into its group's copy, and
        // hands the group's to the view until it ends the pass.
        if copy == nil { inputReads += 1 }
        var copies: [TraceCopy] = []
        for _ in 0..<group.count { copies.append(try TraceCopy(of: path)) }
        let whole = try reading(passPath!)
        handsGroup = true
        defer { handsGroup = false }
        try whole.forEach(progress: progressOfPass(number)) { e in
            let admitted = step.admits(e)
            if step.due { read = step.count }
            guard admitted else { return }
            let index = RuntimeGroup.index(of: e.runtimeKey, among: group.count)
            copies[index].append(e)
            if index == group.index && handsGroup { body(e) }
        }
        for i in copies.indices { try copies[i].finish(counts: nil) }
        groupCopies = copies
    }

    /// Indexes the trace file in a pass of its own and keeps the index beside it, to be read back
    /// when asked for (``index``), after the passes that do not need it; held from now on when it
    /// cannot be kept (a directory the user cannot write).
    private func indexApart() throws {
        inputReads += 1
        indexedApart = true
        progress.prefix = "indexing: "
        defer { progress.prefix = "" }
        // A reader of its own: `input` is read by the view's first pass, after this one.
        guard let built = try reading(path).forEachIndexing(progress: progress, keepsIndex: false, { _ in }).index else {
            return
        }
        if built.save(sidecarOf: path) == nil { keptLookup = .unknown } else { madeIndex = built }
    }

    /// Ends the pass under way after the event its body has: for a later pass whose view has
    /// what it needs before the end. (The first pass reads the whole input: it finds what the
    /// input says of itself, and copies it; so does the first pass of a group of several,
    /// which copies each group's events apart, ``follow(_:)``.)
    package func endPass() {
        if handsGroup { handsGroup = false } else { later?.stopReading() }
    }

    /// What a pass follows of each event it reads.
    private struct Step {
        var selection: Selection
        var count: UInt64 = 0
        var earliest: UInt64?

        /// Counts `e` and says whether the selection keeps it.
        mutating func admits(_ e: TraceEvent) -> Bool {
            count += 1
            earliest = min(earliest ?? e.time, e.time)
            return selection.keep(e)
        }

        /// Whether the count is due to be shown (``TraceSource/read``): every 16,384 events.
        var due: Bool { count & 0x3FFF == 0 }
    }

    /// Reads a later pass anew, from any thread: for what reads on demand after the source's own
    /// passes (the terminal UI's diagrams). Available after the first pass of several.
    package func rereader() -> @Sendable ((TraceEvent) -> Void) throws -> Void {
        let path = passPath!
        let fresh = freshSelection
        return { body in
            var again = fresh
            try TraceInput(path: path).forEach { if again.keep($0) { body($0) } }
        }
    }

    /// The index alone, for a view that seeks before any pass (`sequence --request`): the trace
    /// file's kept index, else one built in a pass of its own; for other inputs, the copy's. Its
    /// runtimes are counted in the selection, checked.
    package func seekIndex() throws -> TraceFileIndex? {
        precondition(access.seeksIndex && passes == 0, "an index is found before any pass of a seeking source")
        passes += 1
        if readsInPlace {
            inputReads += 1
            madeIndex = try kept(keeping: true) ?? input.fileIndex(progress: progress)
            if let index {
                notes = index.notes
                hosts = index.hosts
                firstTime = index.firstTime
            }
        } else {
            try makeCopy()
            madeIndex = try reading(copy!.path).forEachIndexing(progress: progressOfPass(1), keepsIndex: false) { _ in }.index
        }
        if let index { selection.count(runtimes: index.runtimes.map(\.key), events: index.events) }
        try selection.check()
        return index
    }

    /// Holds the selected events in memory (at most ``TraceInput/holdLimit``: status 80 past it)
    /// and returns them, with the earliest time of all the events.
    package func hold() throws -> (trace: Trace, start: UInt64?) {
        precondition(passes == 0, "a source is held before any pass")
        passes += 1
        inputReads += 1
        var selection = self.selection  // a local: no exclusivity check an event
        let held = try input.load(progress: progress) { selection.keep($0) }
        self.selection = selection
        try selection.check()
        notes = held.trace.notes
        counts = held.trace.counts
        hosts = input.hosts
        lossesUnknown = input.lossesUnknown
        firstTime = held.start
        return held
    }

    /// The one read of the input for a source of several passes: every event (selected or not)
    /// into the copy, and what the input says of itself.
    private func makeCopy() throws {
        inputReads += 1
        progress.prefix = "copying: "
        var copy = try TraceCopy(of: path)
        var earliest: UInt64?
        let (notes, counts) = try input.forEach(progress: progress) { e in
            earliest = min(earliest ?? e.time, e.time)
            copy.append(e)
        }
        try copy.finish(counts: counts)
        self.copy = copy
        self.notes = notes
        self.counts = counts
        hosts = input.hosts
        lossesUnknown = input.lossesUnknown
        firstTime = earliest
    }

    private func reading(_ file: String) throws -> TraceInput {
        do {
            return try TraceInput(path: file)
        } catch let error as CLIError {
            // The trace file replaced or removed between two passes.
            throw CLIError.data("\(path): cannot read it again: \(error.message)")
        }
    }

    /// The progress of pass `number` (from 0): shown as "pass N" from the second.
    private func progressOfPass(_ number: Int) -> Progress {
        progress.prefix = number == 0 && copy == nil ? "" : "pass \(number + 1): "
        return progress
    }
}
