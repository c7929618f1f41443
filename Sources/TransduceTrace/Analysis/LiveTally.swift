/// Running totals of a trace that is still being recorded (a live session), kept in bounded
/// memory: counts and latency distributions over everything (requests, gate waits, the longest
/// hold), and the awaited dispatches still waiting for their resume.
///
/// A value: fold events into it with ``add(_:)`` in the order they arrive; read it at any time.
/// Memory is bounded whatever the trace's length: one counter per event kind, two fixed-size
/// histograms (``LatencyHistogram``, about 16 KiB each), one entry per
/// runtime (at most ``maxRuntimes``) and per waiting dispatch (at most ``maxInFlight``; beyond it
/// they are counted in ``untrackedDispatches`` instead).
package struct LiveTally: Sendable, Equatable {
    /// The most runtimes tracked one by one.
    package static let maxRuntimes = 4_096
    /// The most waiting dispatches tracked one by one.
    package static let maxInFlight = 65_536

    /// Events folded in.
    package private(set) var events: UInt64 = 0
    /// Events of each kind, indexed by the kind's raw value.
    package private(set) var byKind: [UInt64] = Array(repeating: 0, count: TraceEvent.Kind.allCases.count)
    /// The runtimes seen (their ``TraceEvent/runtimeKey``), and the process of each.
    package private(set) var runtimes: [RuntimeKey: UInt32] = [:]
    /// Awaited dispatches not resumed yet, by runtime key and dispatch id.
    package private(set) var inFlight: Set<InFlightKey> = []
    /// Awaited dispatches that were not tracked because ``maxInFlight`` were already waiting.
    package private(set) var untrackedDispatches: UInt64 = 0
    /// The deepest queue a dispatch or cycle reported.
    package private(set) var maxQueueDepth: UInt32 = 0
    /// Every awaited request's latency, dispatch to resume (its `requestResume`).
    package private(set) var requestLatencies = LatencyHistogram()
    /// Every admission's wait for the gate (its `cycleEnter`).
    package private(set) var gateWaits = LatencyHistogram()
    /// The longest a cycle held the gate.
    package private(set) var longestHold: UInt64 = 0
    /// The first event's time (0 before the first event).
    package private(set) var firstTime: UInt64 = 0
    /// The latest event time (0 before the first event).
    package private(set) var lastTime: UInt64 = 0
    /// When each dispatch not yet entered (or, awaited, not yet resumed) was stamped, and each
    /// runtime's open cycle: every duration is measured on the trace's own clock (at most
    /// ``maxInFlight`` and ``maxRuntimes`` of them; beyond, the runtime's measure is taken).
    private var dispatched: [InFlightKey: UInt64] = [:]
    private var entered: [RuntimeKey: OpenCycle] = [:]
    private struct OpenCycle: Equatable, Sendable {
        var cycle: UInt64
        var time: UInt64
    }

    /// An awaited dispatch of one runtime.
    package struct InFlightKey: Hashable, Sendable {
        /// The runtime (``TraceEvent/runtimeKey``).
        package var runtime: RuntimeKey
        /// The dispatch id within it.
        package var dispatch: UInt64
    }

    /// An empty tally.
    package init() {}

    /// Folds in one event.
    package mutating func add(_ event: TraceEvent) {
        events += 1
        byKind[Int(event.kind.rawValue)] += 1
        if firstTime == 0 { firstTime = event.time }
        lastTime = max(lastTime, event.time)
        let runtime = event.runtimeKey
        if runtimes[runtime] == nil, runtimes.count < Self.maxRuntimes { runtimes[runtime] = event.process }
        switch event.kind {
        case .dispatch:
            maxQueueDepth = max(maxQueueDepth, event.count)
            if dispatched.count < Self.maxInFlight {
                dispatched[InFlightKey(runtime: runtime, dispatch: event.dispatch)] = event.time
            }
            guard event.isAwaitedDispatch else { break }
            if inFlight.count < Self.maxInFlight {
                inFlight.insert(InFlightKey(runtime: runtime, dispatch: event.dispatch))
            } else {
                untrackedDispatches += 1
            }
        case .cycleEnter:
            maxQueueDepth = max(maxQueueDepth, event.count)
            let key = InFlightKey(runtime: runtime, dispatch: event.dispatch)
            // An awaited dispatch's stamp is kept for its latency.
            let stamp = inFlight.contains(key) ? dispatched[key] : dispatched.removeValue(forKey: key)
            gateWaits.record(stamp.map { event.time.minus($0) } ?? event.nanos)
            if entered[runtime] != nil || entered.count < Self.maxRuntimes {
                entered[runtime] = OpenCycle(cycle: event.cycle, time: event.time)
            }
        case .cycleLeave:
            let enter = entered[runtime].flatMap { $0.cycle == event.cycle ? $0.time : nil }
            longestHold = max(longestHold, enter.map { event.time.minus($0) } ?? event.nanos)
            if enter != nil { entered[runtime] = nil }
        case .requestResume:
            let key = InFlightKey(runtime: runtime, dispatch: event.dispatch)
            inFlight.remove(key)
            requestLatencies.record(dispatched.removeValue(forKey: key).map { event.time.minus($0) } ?? event.nanos)
        case .runtimeStop:
            inFlight = inFlight.filter { $0.runtime != runtime }
            dispatched = dispatched.filter { $0.key.runtime != runtime }
        default:
            break
        }
    }

    /// The events of `kind` folded in.
    package func count(of kind: TraceEvent.Kind) -> UInt64 { byKind[Int(kind.rawValue)] }

    /// The kinds seen at least once, in the kinds' order.
    package var kindsSeen: [TraceEvent.Kind] { TraceEvent.Kind.allCases.filter { count(of: $0) > 0 } }
}
