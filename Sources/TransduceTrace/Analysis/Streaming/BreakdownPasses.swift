/// The passes over a trace that break down every awaited request it resumed, in memory bounded
/// whatever the trace, in a fixed order: the plan both the CSV requests table (and `diff`) and
/// the OTLP export follow. A driver asks for the next pass's ``ResumeBreakdowns``, hands it
/// every event of the trace in order until it ``ResumeBreakdowns/isDone`` (or the trace ends),
/// takes its breakdowns as they come, and gives it back with ``finished(_:)``:
///
/// 1. a first pass breaks each request down at its resume from what it kept (at most `maxKept`
///    events) and names those whose windows reached back further (at most `maxMissed`);
/// 2. a pass for each batch of those (``MissedPasses``), then for what they missed again;
/// 3. where the first pass named as many as it may, a round of 1 and 2 again from the first
///    request it could not (``ResumeBreakdowns/resumesCovered``), as many as it takes;
/// 4. where more runtimes had requests waiting at once than a pass follows (``RuntimesWaiting``,
///    counted in a census pass before), rounds of 1–3 for one ``RuntimeGroup`` of them at a
///    time: a pass's state is that of a group's runtimes.
///
/// None is left out and none is broken down twice; the same trace always gives the same order
/// (the first pass's resumes, then the missed ones batch by batch, then the next round's, then
/// the next group's), so an export that stopped part-way resumes at the same request.
package struct BreakdownPasses {
    private let maxKept: Int
    private let maxMissed: Int
    private let keepsWindows: Bool
    /// The runtimes the pass ``next()`` handed out last follows (a pass of missed requests, only
    /// some of them): a source may hand it only their events (``RuntimeGroup``).
    package private(set) var group: RuntimeGroup
    /// The missed requests' passes of the round under way.
    private var missed = MissedPasses([], maxKept: 1)
    /// Where the next first pass of the group starts (resumes counted among the group's), nil
    /// when the group's rounds are done.
    private var nextRound: Int? = 0
    /// Whether the pass handed out last is a round's first.
    private var runningFirst = false
    /// Passes handed out, and how many of them were rounds' first.
    package private(set) var passes = 0
    package private(set) var rounds = 0

    /// The runtimes open at once a pass follows, unless told otherwise: past them, the passes go
    /// group by group (at 25.6M events in 200,000 runtimes open at once, their states were most
    /// of the OTLP export's 299 MiB).
    package static let defaultMaxRuntimes = 50_000

    /// The passes of a trace in which at most `peakRuntimes` runtimes had requests waiting at
    /// once (``RuntimesWaiting/peak``), each following at most `maxRuntimes` of them on average
    /// (``RuntimeGroup/count(for:most:)``), keeping at most `maxKept` events and naming at most
    /// `maxMissed` missed requests (``ResumeBreakdowns``); with `keepsWindows`, the passes keep
    /// each breakdown's window (``ResumeBreakdowns/takeWithWindows()``).
    package init(
        peakRuntimes: Int, maxRuntimes: Int = defaultMaxRuntimes, maxKept: Int = ResumeBreakdowns.defaultMaxKept,
        maxMissed: Int = ResumeBreakdowns.defaultMaxMissed, keepsWindows: Bool = false
    ) {
        group = RuntimeGroup(0, of: RuntimeGroup.count(for: peakRuntimes, most: maxRuntimes))
        self.maxKept = maxKept
        self.maxMissed = maxMissed
        self.keepsWindows = keepsWindows
    }

    /// How many groups of runtimes the passes go through.
    package var groups: Int { group.count }

    /// The next pass's breakdowns, to be handed every event of the trace in order (until they
    /// are done) and then given back with ``finished(_:)``; nil when every request has been
    /// broken down.
    package mutating func next() -> ResumeBreakdowns? {
        if let batch = missed.next() {
            runningFirst = false
            passes += 1
            return ResumeBreakdowns(missed: batch.keys, maxKept: batch.maxKept, keepsWindows: keepsWindows)
        }
        if nextRound == nil, group.index + 1 < group.count {
            group = RuntimeGroup(group.index + 1, of: group.count)
            nextRound = 0
        }
        guard let from = nextRound else { return nil }
        nextRound = nil
        runningFirst = true
        passes += 1
        rounds += 1
        return ResumeBreakdowns(
            maxKept: maxKept, keepsWindows: keepsWindows, maxMissed: maxMissed, resumesFrom: from, group: group)
    }

    /// Takes back the pass ``next()`` handed out, after its last event: what it missed makes the
    /// passes that follow (what it kept is let go).
    package mutating func finished(_ pass: inout ResumeBreakdowns) {
        if runningFirst {
            nextRound = pass.resumesCovered
            missed = MissedPasses(pass.takeMissedBatches(spread: MissedPasses.spread), maxKept: maxKept)
        } else {
            missed.missedAgain(pass.takeMissedBatches())
        }
    }
}
