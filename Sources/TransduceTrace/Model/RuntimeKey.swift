/// One runtime across the processes of a trace, as one `UInt64`: the process id in the top 24
/// bits, the runtime id in the low 40 (ids of a real process never come near 2^40; a hostile trace
/// whose ids do has some runtimes grouped together, nothing worse). A trace without process ids
/// (process 0) keys runtimes by their plain ids.
public enum RuntimeKey {
    static let runtimeBits: UInt64 = 40

    /// The key of `runtime` in `process` (the plain id when `process` is 0).
    public static func make(process: UInt32, runtime: UInt64) -> UInt64 {
        process == 0 ? runtime : UInt64(process & 0xFF_FFFF) << runtimeBits | (runtime & ((1 << runtimeBits) - 1))
    }

    /// The process of a key (0 when the trace gave none).
    public static func process(_ key: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: key >> runtimeBits) }

    /// The runtime id within its process.
    public static func runtime(_ key: UInt64) -> UInt64 {
        process(key) == 0 ? key : key & ((1 << runtimeBits) - 1)
    }

    /// `3`, or `3 (pid 4242)` when the trace says which process.
    public static func name(_ key: UInt64) -> String {
        let pid = process(key)
        return pid == 0 ? String(key) : "\(runtime(key)) (pid \(pid))"
    }
}
