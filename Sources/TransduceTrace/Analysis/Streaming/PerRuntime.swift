/// The per-runtime state of a streaming analysis: states in an array behind a key → slot table,
/// with the last key's slot remembered.
///
/// A stream's events come in runs of one runtime, and a state is changed in place through its
/// slot (`table[slot: i].field = …`): no copy of it out of a dictionary and back, and one lookup
/// for the several fields an event touches. States are never removed (a runtime's state is reset
/// in place instead), so a slot stays valid for the table's life.
package struct PerRuntime<State> {
    private var slots: [RuntimeKey: Int] = [:]
    private var states: [State] = []
    /// The keys, in the order their states were made.
    package private(set) var keys: [RuntimeKey] = []
    private var lastKey = RuntimeKey(rawValue: 0)
    private var lastSlot = -1

    package init() {}

    /// How many runtimes have a state.
    package var count: Int { states.count }

    /// Whether a state's emptied tables should let go of their storage: past the runtimes a view
    /// keeps whole (``RuntimeLanes/maxWhole``), where tens of thousands open at once each kept the
    /// capacity of its largest size. With fewer they keep it: a table made again for every
    /// request, task or admission cost the views a few percent (`tasks` a fifth).
    package var letsGoOfEmptyTables: Bool { states.count > RuntimeLanes.maxWhole }

    /// Gives slot `slot`'s `table` fresh (no) storage when it is empty and
    /// ``letsGoOfEmptyTables``.
    package mutating func letGoIfEmpty<Key, Value>(_ table: WritableKeyPath<State, [Key: Value]>, of slot: Int) {
        guard letsGoOfEmptyTables, states[slot][keyPath: table].isEmpty else { return }
        states[slot][keyPath: table] = [:]
    }

    /// The slot of `key`'s state, if it has one.
    @inline(__always)
    package mutating func slot(_ key: RuntimeKey) -> Int? {
        if lastSlot >= 0 && key == lastKey { return lastSlot }
        guard let found = slots[key] else { return nil }
        lastKey = key
        lastSlot = found
        return found
    }

    /// The slot of `key`'s state, made with `make` if it has none.
    @inline(__always)
    package mutating func slot(_ key: RuntimeKey, orMake make: () -> State) -> Int {
        if let found = slot(key) { return found }
        let made = states.count
        states.append(make())
        keys.append(key)
        slots[key] = made
        lastKey = key
        lastSlot = made
        return made
    }

    /// The state in slot `i` (from ``slot(_:)``), read or changed in place.
    package subscript(slot i: Int) -> State {
        _read { yield states[i] }
        _modify { yield &states[i] }
    }

    /// Moves the state out of slot `i`, leaving `placeholder` there until ``put(_:_:)`` puts it
    /// back: for an update that changes other things of its owner too (no copy of the state's
    /// collections either way).
    package mutating func take(_ i: Int, leaving placeholder: State) -> State {
        var state = placeholder
        swap(&state, &states[i])
        return state
    }

    /// Puts `state` (from ``take(_:leaving:)``) back in slot `i`, moved (swapped with the
    /// placeholder, which `state` then holds): assigning it would copy, then release, every
    /// collection it holds, on every event.
    package mutating func put(_ i: Int, _ state: inout State) { swap(&state, &states[i]) }

    /// `key`'s state, if it has one.
    package func state(_ key: RuntimeKey) -> State? { slots[key].map { states[$0] } }
}

extension PerRuntime: Sendable where State: Sendable {}
