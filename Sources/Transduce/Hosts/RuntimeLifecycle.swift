/// The lifecycle of a runtime: `active`, then exactly one terminal value.
/// The raw values are the codes traces store.
public enum RuntimeLifecycle: UInt8, Sendable, Hashable, CaseIterable, BitwiseCopyable {
    /// Accepting and running events.
    case active
    /// Stopped by `cancel()`.
    case cancelled
    /// The host was deallocated.
    case deallocated
    /// A task or handler threw; the runtime stopped with that error.
    case failed
}
