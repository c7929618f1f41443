/// A small fast generator (SplitMix64): a seed replays the same sequence on every machine, so a
/// failing seed of a randomized test repeats exactly.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    public var state: UInt64

    /// The sequence of `seed`.
    public init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `true` `percent` times in a hundred.
    public mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }

    /// A number below `n`.
    public mutating func next(below n: UInt64) -> UInt64 { next() % n }
}
