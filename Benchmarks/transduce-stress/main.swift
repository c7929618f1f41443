import RingStress
import TransduceTrace

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// `swift run -c release transduce-stress [ROUNDS]`: the ring buffer under producers, a drainer
// and a snapshotter at once, in both modes; exits 1 on the first failed check.
let rounds = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 3
var failed = false
for round in 1...max(1, rounds) {
    for mode in [TraceRingBuffer.Mode.overwriteOldest, .discardNewest] {
        for producers in [1, 4] {
            let report = RingStress.run(producers: producers, capacity: 1 << 10, mode: mode, seconds: 0.5)
            print("ring stress round \(round) \(mode), \(producers) producers: \(report)")
            if !report.failures.isEmpty { failed = true }
        }
    }
}
exit(failed ? 1 : 0)
