/// Every runtime's gate for the overview, in memory bounded by the runtimes kept whole: a
/// ``GateBuilder`` for each of the first ``RuntimeLanes/maxWhole`` runtimes the stream names,
/// and one for all the runtimes after them together (their row says how many).
package struct GateTable {
    private var lanes = RuntimeLanes()
    /// By lane: the whole runtimes' builders, then (once there are others) theirs.
    private var builders: [GateBuilder] = []

    /// Takes the next event of the stream, in order.
    package mutating func consume(_ e: TraceEvent) {
        let lane = lanes.lane(e.runtimeKey)
        while builders.count <= lane { builders.append(GateBuilder()) }
        builders[lane].consume(e)
    }

    /// How many runtimes the stream named.
    package var runtimes: Int { lanes.count }

    /// The gates by runtime, then the others' together when there are any; a `preview` as
    /// ``GateBuilder/gate(runtime:host:together:preview:)`` makes it.
    package func gates(hosts: [UInt32: String], preview: Bool = false) -> [TraceOverview.Gate] {
        let whole = lanes.whole.enumerated().sorted { $0.element < $1.element }.map { lane, key in
            builders[lane].gate(runtime: key, host: hosts[key.process] ?? "", preview: preview)
        }
        guard lanes.otherCount > 0 else { return whole }
        return whole
            + [
                builders[RuntimeLanes.maxWhole].gate(
                    runtime: RuntimeLanes.others, host: "", together: lanes.otherCount, preview: preview)
            ]
    }
}
