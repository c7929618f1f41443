import TransduceTrace

extension TraceGenerator {
    /// Runtimes that come and go (a runtime per connection): `count` waves, one after the other in
    /// time, each of `runtimes` processes of one runtime and about `events` events (the
    /// many-runtimes shape of ``write(events:processes:runtimes:longWindows:to:)``), each wave's
    /// processes numbered 1,000 past the previous one's. `scratch` is where one wave is written
    /// and read back from.
    package func waves(_ count: Int, events: Int, runtimes: Int, scratch: String) throws -> [TraceEvent] {
        try write(events: events, processes: runtimes, runtimes: 1, to: scratch)
        let wave = try TraceFileReader(path: scratch).readAll().events
        guard let first = wave.map(\.time).min(), let last = wave.map(\.time).max() else { return [] }
        return (0..<count).flatMap { n in
            wave.map {
                var e = $0
                e.process += UInt32(1_000 * n)
                e.time += UInt64(n) * (last - first + 1)
                return e
            }
        }
    }
}
