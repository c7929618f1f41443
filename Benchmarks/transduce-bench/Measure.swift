import Transduce

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A figure: the median of several repetitions after a warm-up, with its spread.
struct Figure {
    var key: String
    var value: Double
    var min: Double
    var max: Double
    var unit: String
    var note: String = ""

    var spread: String {
        value == 0 ? "" : "±" + fmt((max - min) / 2 / value * 100, 1) + "%"
    }
}

func fmt(_ v: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let r = (v * scale).rounded() / scale
    var s = String(r)
    if decimals == 0, s.hasSuffix(".0") { s.removeLast(2) }
    return s
}

/// Runs `body` (which returns one sample) `warmup` times unmeasured, then `repetitions` times.
func measure(_ key: String, unit: String, warmup: Int = 2, repetitions: Int, _ body: () throws -> Double) rethrows -> Figure {
    for _ in 0..<warmup { _ = try body() }
    var samples: [Double] = []
    for _ in 0..<repetitions { samples.append(try body()) }
    samples.sort()
    return Figure(key: key, value: samples[samples.count / 2], min: samples.first!, max: samples.last!, unit: unit)
}

/// CPU nanoseconds of the calling thread per iteration of `body`, run `count` times
/// (`CLOCK_THREAD_CPUTIME_ID`): what the thread spent, whatever else the machine ran meanwhile.
/// For loops that run on one thread without blocking (the recorder's, LTTng's).
@inline(__always)
func cpuNanosPerIteration(_ count: Int, _ body: () -> Void) -> Double {
    func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
    let start = now()
    body()
    return Double(now() - start) / Double(count)
}

/// Interleaved rounds: each round measures `a` then `b` back to back, so both sides of a ratio
/// see the same machine; the figures are the medians of the per-round values and ratios.
func interleaved(
    _ keyA: String, _ keyB: String, ratio ratioKey: String, warmup: Int = 2, rounds: Int,
    isolation: isolated (any Actor)? = #isolation, _ a: () async throws -> Double, _ b: () async throws -> Double
) async rethrows -> [Figure] {
    for _ in 0..<warmup {
        _ = try await a()
        _ = try await b()
    }
    var samplesA: [Double] = []
    var samplesB: [Double] = []
    var ratios: [Double] = []
    for _ in 0..<rounds {
        let x = try await a()
        let y = try await b()
        samplesA.append(x)
        samplesB.append(y)
        ratios.append(x / y)
    }
    func figure(_ key: String, _ samples: [Double], _ unit: String) -> Figure {
        let sorted = samples.sorted()
        return Figure(key: key, value: sorted[sorted.count / 2], min: sorted.first!, max: sorted.last!, unit: unit)
    }
    return [figure(keyA, samplesA, "ns"), figure(keyB, samplesB, "ns"), figure(ratioKey, ratios, "×")]
}

/// ``interleaved`` for synchronous measurements.
func interleavedSync(
    _ keyA: String, _ keyB: String, ratio ratioKey: String, warmup: Int = 2, rounds: Int, _ a: () -> Double,
    _ b: () -> Double
) -> [Figure] {
    var samples: [(Double, Double)] = []
    for round in 0..<(warmup + rounds) {
        let x = a()
        let y = b()
        if round >= warmup { samples.append((x, y)) }
    }
    func figure(_ key: String, _ values: [Double], _ unit: String) -> Figure {
        let sorted = values.sorted()
        return Figure(key: key, value: sorted[sorted.count / 2], min: sorted.first!, max: sorted.last!, unit: unit)
    }
    return [
        figure(keyA, samples.map(\.0), "ns"), figure(keyB, samples.map(\.1), "ns"),
        figure(ratioKey, samples.map { $0.0 / $0.1 }, "×"),
    ]
}
