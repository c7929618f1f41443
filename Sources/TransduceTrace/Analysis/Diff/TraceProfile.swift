import Transduce

/// What `trace-view diff` compares of one trace, folded from its events and its requests'
/// breakdowns in memory bounded whatever the trace's size: per runtime name and event label,
/// the requests' latencies and the mean of each latency part; per runtime name, the gate's waits
/// and holds; per runtime name and task name, how its instances ended; the warnings by what
/// they are about.
///
/// Two runs have different runtime ids, so a runtime is known by its transducer's name (its
/// `runtimeStart`): the runtimes of one name are one group, as they are one piece of code. A
/// view hands it every event (``consume(_:)``) and every request's breakdown (``add(_:)``, from
/// ``ResumeBreakdowns`` and its missed passes), then calls ``finish(lost:lossesUnknown:)``.
package struct TraceProfile {
    /// A runtime name and an event label: how requests of two runs are matched.
    package struct RequestKey: Hashable, Comparable, Sendable {
        package var runtime: String
        package var label: String

        package init(runtime: String, label: String) { (self.runtime, self.label) = (runtime, label) }

        package static func < (a: Self, b: Self) -> Bool { (a.runtime, a.label) < (b.runtime, b.label) }
    }

    /// The requests of one key.
    package struct Requests: Sendable {
        package var latency = LatencyHistogram()
        /// Each part's nanoseconds a request, by part (in ``LatencyBreakdown/Part/Kind`` order):
        /// of the requests that had the part (the others had 0 of it: ``zeros(_:)``). A histogram
        /// holds only the powers of two its values span.
        package var parts = [LatencyHistogram](repeating: LatencyHistogram(), count: LatencyBreakdown.Part.Kind.allCases.count)
        /// The admission waits' holders: nanoseconds of wait by the holding cycle's label (the
        /// first ``maxHolders`` labels; the rest under "other").
        package var heldBy: [String: UInt64] = [:]

        /// Part `kind`'s histogram.
        package func part(_ kind: LatencyBreakdown.Part.Kind) -> LatencyHistogram { parts[Self.slot(kind)] }
        /// The requests that had none of part `kind`.
        package func zeros(_ kind: LatencyBreakdown.Part.Kind) -> UInt64 { latency.count - part(kind).count }

        static func slot(_ kind: LatencyBreakdown.Part.Kind) -> Int {
            LatencyBreakdown.Part.Kind.allCases.firstIndex(of: kind)!
        }
    }

    /// A runtime name's gate: the waits for it, the holds of it, and what held it.
    package struct Gate: Sendable {
        package var report = ContentionReport()
        /// How many runtimes of this name the trace has.
        package var runtimes = 0
    }

    /// A runtime name and a task name: how task instances of two runs are matched.
    package struct TaskKey: Hashable, Comparable, Sendable {
        package var runtime: String
        package var name: String

        package static func < (a: Self, b: Self) -> Bool { (a.runtime, a.name) < (b.runtime, b.name) }
    }

    /// The most groups of each kind held apart (request keys, gates, task keys, warning keys);
    /// past it, the rest are one group named ``others``, and ``overflowed`` says so. A trace of
    /// many runtimes has few runtime names; labels and task names are the app's code's. (A
    /// request key holds a histogram of its latency and of each of its parts: a few KiB each, as
    /// many powers of two as their values span; at most some 60 KiB a key.)
    package static let maxGroups = 1_024
    /// The most holders of a key's admission waits held by name.
    package static let maxHolders = 32
    /// The name of the group of everything past ``maxGroups``.
    package static let others = "(others)"

    /// A request's W3C trace context and its key: requests of two runs made under the same
    /// context (replayed traffic, a load test that sends fixed ids) are paired one to one.
    package struct ContextID: Hashable, Comparable, Sendable {
        package var traceHigh: UInt64
        package var traceLow: UInt64
        package var span: UInt64
        /// The request key's slot in ``contextKeys``.
        package var key: Int32

        package static func < (a: Self, b: Self) -> Bool {
            (a.traceHigh, a.traceLow, a.span, a.key) < (b.traceHigh, b.traceLow, b.span, b.key)
        }

        /// `00-TRACEID-SPANID`: the trace id and the parent span id as a `traceparent` writes them.
        package var text: String {
            func hex(_ n: UInt64) -> String {
                let digits = String(n, radix: 16)
                return String(repeating: "0", count: 16 - digits.count) + digits
            }
            return "\(hex(traceHigh))\(hex(traceLow))-\(hex(span))"
        }
    }

    /// The latency of the request of a ``ContextID``, or `nil` when the trace made more than one
    /// request under it (they cannot be told apart, so none of them is paired).
    package private(set) var contexts: [ContextID: UInt64?] = [:]
    /// The request keys of ``contexts`` (a slot each).
    package private(set) var contextKeys: [RequestKey] = []
    private var contextSlots: [RequestKey: Int32] = [:]
    /// The trace context of each awaited request not broken down yet (recorded before its
    /// dispatch, so a breakdown made from the request's window does not hold it).
    private var pendingContexts: [TraceIndex.Key: TraceContext] = [:]
    /// Requests past ``maxContexts`` (by context, or by order): not paired.
    package private(set) var contextsLeftOut = 0
    /// The most requests kept by trace context (about 80 bytes each).
    package static let maxContexts = 500_000

    /// With ``pairsByOrder``, each key's requests made under no trace context, in the order
    /// they were dispatched (the runtime's place among those started, then the dispatch id):
    /// what pairs the i-th request of one run with the i-th of the other.
    package private(set) var ordered: [RequestKey: [(runtime: Int32, dispatch: UInt64, nanos: UInt64)]] = [:]
    /// Keep ``ordered`` (`diff --pair-by-order`).
    package var pairsByOrder = false
    private var runtimeOrder: [RuntimeKey: Int32] = [:]
    private var orderedCount = 0

    package private(set) var requests: [RequestKey: Requests] = [:]
    /// Each runtime name's gate.
    package var gates: [String: Gate] { Dictionary(uniqueKeysWithValues: zip(gateNames, gateList)) }
    /// The gates by slot, their names, and each name's slot.
    private var gateList: [Gate] = []
    private var gateNames: [String] = []
    private var gateSlots: [String: Int] = [:]
    /// The gate slot of each runtime seen (the first million): one lookup an event by the
    /// runtime's key, where its name would take two by string.
    private var runtimeGates: [RuntimeKey: Int] = [:]
    /// Task instances by key, and by how they ended (``fate(of:)``).
    package private(set) var tasks: [TaskKey: [String: Int]] = [:]
    /// Warnings by check and what they are about (``warningKey(_:)``), with how many there were.
    package private(set) var warnings: [String: Int] = [:]
    /// Whether some group went to ``others``.
    package private(set) var overflowed = false
    /// Events read.
    package private(set) var events: UInt64 = 0

    /// The transducer name of each runtime seen start (the first million; later ones, and those
    /// whose start the trace lost, are ``unnamed``: ids differ from run to run and would match
    /// nothing).
    private var names: [RuntimeKey: String] = [:]
    private var taskRows = TaskRows()

    package init() {}

    /// The name a runtime's groups go under.
    package func name(of runtime: RuntimeKey) -> String { names[runtime] ?? Self.unnamed }

    /// The name of the runtimes whose start the trace does not hold (a ring that overwrote it).
    package static let unnamed = "(unnamed)"

    /// Takes the next event of the trace, in order.
    package mutating func consume(_ e: TraceEvent) {
        events += 1
        if e.kind == .runtimeStart, names.count < 1_000_000 {
            names[e.runtimeKey] = e.label.isEmpty ? "?" : e.label
            if pairsByOrder { runtimeOrder[e.runtimeKey] = Int32(clamping: runtimeOrder.count) }
        }
        let slot = gateSlot(of: e.runtimeKey, starting: e.kind == .runtimeStart)
        if e.kind == .runtimeStart { gateList[slot].runtimes += 1 }
        gateList[slot].report.consume(e)
        taskRows.consume(e)
        if taskRows.readyCount >= 1_024 { keep(taskRows.take()) }
        if e.kind == .traceContext, let context = e.traceContext, pendingContexts.count < Self.maxContexts {
            pendingContexts[TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)] = context
        } else if e.kind == .dispatch, !e.isAwaitedDispatch, !pendingContexts.isEmpty {
            // Only awaited requests are broken down: a post's context is not kept.
            pendingContexts[TraceIndex.Key(runtime: e.runtimeKey, id: e.dispatch)] = nil
        }
    }

    /// The slot of the gate `runtime`'s events go to: its name's, or ``others`` past
    /// ``maxGroups`` names. Looked up again at the runtime's start, which names it.
    private mutating func gateSlot(of runtime: RuntimeKey, starting: Bool) -> Int {
        if !starting, let slot = runtimeGates[runtime] { return slot }
        var name = self.name(of: runtime)
        if gateSlots[name] == nil, gateList.count >= Self.maxGroups {
            name = Self.others
            overflowed = true
        }
        let slot: Int
        if let known = gateSlots[name] {
            slot = known
        } else {
            slot = gateList.count
            gateSlots[name] = slot
            gateNames.append(name)
            gateList.append(Gate())
        }
        if runtimeGates.count < 1_000_000 || runtimeGates[runtime] != nil { runtimeGates[runtime] = slot }
        return slot
    }

    /// Takes one request's breakdown (its runtime's start read before).
    package mutating func add(_ b: LatencyBreakdown) {
        var key = RequestKey(runtime: name(of: b.runtime), label: b.label)
        if requests[key] == nil, requests.count >= Self.maxGroups {
            key = RequestKey(runtime: Self.others, label: Self.others)
            overflowed = true
        }
        var group = requests[key] ?? Requests()
        requests[key] = nil  // alone in the dictionary's storage: no copy of its arrays
        group.latency.record(b.total)
        // A request's parts of one kind (two cycles' transduce) are one value of that part.
        var sums = [UInt64](repeating: 0, count: group.parts.count)
        var had = [Bool](repeating: false, count: group.parts.count)
        for part in b.parts {
            let slot = Requests.slot(part.kind)
            sums[slot] = sums[slot].plus(part.nanos)
            had[slot] = true
            guard part.kind == .admissionWait else { continue }
            for holder in part.heldBy {
                let label = holder.cycle == 0 ? Self.others : holder.label
                let named = group.heldBy[label] != nil || group.heldBy.count < Self.maxHolders ? label : Self.others
                group.heldBy[named, default: 0] = group.heldBy[named, default: 0].plus(holder.nanos)
            }
        }
        for slot in sums.indices where had[slot] { group.parts[slot].record(sums[slot]) }
        requests[key] = group
        let context = pendingContexts.removeValue(forKey: TraceIndex.Key(runtime: b.runtime, id: b.dispatch))
        if let context = context ?? b.traceContext {
            keep(context, key: key, nanos: b.total)
        } else if pairsByOrder {
            if orderedCount < Self.maxContexts {
                orderedCount += 1
                let runtime = runtimeOrder[b.runtime] ?? Int32.max
                ordered[key, default: []].append((runtime, b.dispatch, b.total))
            } else {
                contextsLeftOut += 1
            }
        }
    }

    private mutating func keep(_ context: TraceContext, key: RequestKey, nanos: UInt64) {
        var slot = contextSlots[key]
        if slot == nil {
            slot = Int32(contextKeys.count)
            contextSlots[key] = slot
            contextKeys.append(key)
        }
        let id = ContextID(traceHigh: context.traceIDHigh, traceLow: context.traceIDLow, span: context.spanID, key: slot!)
        if contexts[id] != nil {
            contexts[id] = .some(nil)
        } else if contexts.count < Self.maxContexts {
            contexts[id] = nanos
        } else {
            contextsLeftOut += 1
        }
    }

    /// Ends the trace: the tasks still running, and every warning of the gates and the tasks.
    package mutating func finish(lost: UInt64 = 0, lossesUnknown: Bool = false) {
        let (rows, taskWarnings) = taskRows.finish(lost: lost, lossesUnknown: lossesUnknown)
        taskRows = TaskRows()
        keep(rows)
        for w in gateList.flatMap(\.report.warnings) + taskWarnings {
            let key = warningKey(w)
            if warnings[key] == nil, warnings.count >= Self.maxGroups {
                overflowed = true
                warnings[Self.others, default: 0] += 1
            } else {
                warnings[key, default: 0] += 1
            }
        }
    }

    private mutating func keep(_ rows: [TaskReport.Row]) {
        for row in rows {
            var key = TaskKey(runtime: name(of: row.runtime), name: row.name)
            if tasks[key] == nil, tasks.count >= Self.maxGroups {
                key = TaskKey(runtime: Self.others, name: Self.others)
                overflowed = true
            }
            tasks[key, default: [:]][Self.fate(of: row.outcome), default: 0] += 1
        }
    }

    /// How a task instance ended, without what differs from run to run (an error's text, why
    /// it was cancelled): `completed`, `failed`, `cancelled`, `running` (never settled), ….
    package static func fate(of outcome: String) -> String {
        String(outcome.prefix { $0 != "(" && $0 != " " })
    }

    /// A warning by its check and what it is about, in names two runs share (a runtime's name,
    /// a task's name, a cycle's label), never ids or times.
    package func warningKey(_ w: AnalysisWarning) -> String {
        let about: String
        switch w.finding {
        case .longHold(_, _, let longest, _): about = "\(name(of: longest.runtime)): \(longest.label)"
        case .runawayQueue(let runtime, _, _): about = name(of: runtime)
        case .growingQueue: about = ""
        case .neverSettled(let t), .noEndRecorded(let t, _): about = "\(name(of: t.runtime)): task \(t.name)"
        case .switchToLatestChurn(let runtime, let task, _, _): about = "\(name(of: runtime)): task \(task)"
        }
        return about.isEmpty ? w.check.rawValue : "\(w.check.rawValue) (\(about))"
    }
}
