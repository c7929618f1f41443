/// How a task is registered: by its id, or (anonymous) by its instance. Not nested in the generic
/// registry: a nested type would be generic too, and its hashing and equality in the registry's
/// dictionary would look its metadata up at run time on every call.
@usableFromInline
enum TaskRegistryKey: Hashable, Sendable {
    // Boxed: an existential payload would make every copy of the key go through its value
    // witnesses.
    indirect case named(TaskIdentifier)
    case anonymous(UInt64)
}

/// The task manager's registry as a value: the live task instances by id, their policies'
/// effects (a `switchToLatest` instance replaces the running one and takes over its waiters; a
/// request joins a running `shareable` instance), cancellation and the end of an instance. Pure:
/// it holds task handles but never touches them; the shell (``RuntimeCore``, under its lock)
/// starts, cancels and reports.
@usableFromInline
struct TaskRegistry<Waiter, Handle> {
    /// How a task is registered (``TaskRegistryKey``).
    @usableFromInline
    typealias Key = TaskRegistryKey

    /// One live instance.
    @usableFromInline
    struct Entry {
        @usableFromInline
        var instance: UInt64
        @usableFromInline
        var handle: Handle?
        /// The request waiters it carries.
        @usableFromInline
        var waiters: [Waiter]
        @usableFromInline
        var startedAt: UInt64

        @inlinable
        init(instance: UInt64, handle: Handle?, waiters: [Waiter], startedAt: UInt64) {
            self.instance = instance
            self.handle = handle
            self.waiters = waiters
            self.startedAt = startedAt
        }
    }

    @usableFromInline
    private(set) var entries: [Key: Entry] = [:]
    @usableFromInline
    private(set) var lastInstance: UInt64 = 0

    @inlinable
    init() {}

    /// Live instances.
    @inlinable
    var count: Int { entries.count }

    /// What a task effect led to.
    @usableFromInline
    enum Spawn {
        /// The waiters joined running shareable instance `instance`.
        case joined(instance: UInt64)
        /// Instance `instance` must be started under `key`, carrying `waiters` (the replaced
        /// instance's first); `replaced` is the instance it replaces, removed here, whose task the
        /// shell cancels.
        case start(instance: UInt64, key: Key, waiters: [Waiter], replaced: Entry?)
    }

    /// A task effect with `id` (nil: anonymous) under `policy`, carrying `waiters`.
    @inlinable
    mutating func spawn(id: TaskIdentifier?, policy: TaskPolicyKind, waiters: [Waiter]) -> Spawn {
        var carried = waiters
        var replaced: Entry?
        if let id, let existing = entries[.named(id)] {
            if policy == .shareable {
                entries[.named(id)]!.waiters += waiters
                return .joined(instance: existing.instance)
            }
            replaced = entries.removeValue(forKey: .named(id))
            carried = existing.waiters + waiters
        }
        lastInstance += 1
        let key: Key = id.map(Key.named) ?? .anonymous(lastInstance)
        return .start(instance: lastInstance, key: key, waiters: carried, replaced: replaced)
    }

    /// Registers the instance `spawn` asked to start, with its task's handle.
    @inlinable
    mutating func started(_ key: Key, _ entry: Entry) {
        entries[key] = entry
    }

    /// Instance `instance` under `key` finished: its entry, removed (so a later shareable request
    /// starts fresh work), or `nil` when it was replaced, cancelled or stopped meanwhile (its
    /// late outcome is then discarded).
    @inlinable
    mutating func finish(_ key: Key, instance: UInt64) -> Entry? {
        guard let entry = entries[key], entry.instance == instance else { return nil }
        entries[key] = nil
        return entry
    }

    /// Removes the instance under `key` for a `.cancel`, if one is live.
    @inlinable
    mutating func cancel(_ key: Key) -> Entry? {
        entries.removeValue(forKey: key)
    }

    /// Removes every live instance (a `uniqueRequest`, a stop), oldest first.
    @inlinable
    mutating func cancelAll() -> [Entry] {
        let all = entries.values.sorted { $0.instance < $1.instance }
        entries = [:]
        return all
    }
}
