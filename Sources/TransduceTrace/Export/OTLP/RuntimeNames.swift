/// Each runtime's transducer and host type (its start event's labels), with each distinct pair
/// held once: a service with a runtime per connection names the same pair hundreds of thousands
/// of times (at 200,000 runtimes, a pair of strings each took 21 MB; an index each takes 4).
struct RuntimeNames {
    private var index: [RuntimeKey: UInt32] = [:]
    private var pairs: [(name: String, host: String)] = []
    private var pairIndex: [Pair: UInt32] = [:]

    private struct Pair: Hashable {
        var name: String
        var host: String
    }

    /// `runtime`'s names, if its start was seen.
    subscript(runtime: RuntimeKey) -> (name: String, host: String)? {
        get { index[runtime].map { pairs[Int($0)] } }
        set {
            guard let newValue else {
                index[runtime] = nil
                return
            }
            let pair = Pair(name: newValue.name, host: newValue.host)
            if let i = pairIndex[pair] {
                index[runtime] = i
            } else {
                // Never more pairs than runtimes: a trace that names each differently takes a
                // pair each, as before.
                let i = UInt32(truncatingIfNeeded: pairs.count)
                pairs.append(newValue)
                pairIndex[pair] = i
                index[runtime] = i
            }
        }
    }
}

extension RuntimeNames: Sendable {}
