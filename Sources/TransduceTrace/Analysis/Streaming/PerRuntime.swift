/// The per-runtime state of a streaming analysis: states in an array behind a key → slot table,
/// with the last key's slot remembered.
///
/// A stream's events come in runs of one runtime, and a state is changed in place through its
/// slot (`table[slot: i].field = …`): no copy of it out of a dictionary and back, and one lookup
/// for the several fields an event touches. A slot stays valid until its state is released
/// (``release(_:leaving:)``: a runtime that stopped with nothing open), and a released slot is
/// given to the next runtime that needs one, so the table grows with the runtimes open at once,
/// not with every runtime the stream named (a trace of a runtime per connection names tens of
/// thousands one after another).
package struct PerRuntime<State> {
    private var slots = RuntimeSlots()
    private var states: [State] = []
    /// Each slot's key (a released slot's stays until the slot is given again).
    private var slotKeys: [RuntimeKey] = []
    /// Released slots, to be given again.
    private var free: [Int] = []
    private var lastKey = RuntimeKey(rawValue: 0)
    private var lastSlot = -1

    package init() {}

    /// How many runtimes have a state.
    package var count: Int { states.count - free.count }

    /// Every slot, released ones too (each holds the state it was released with): for a walk
    /// over the states by slot.
    package var allSlots: Range<Int> { states.indices }

    /// The keys of the runtimes with a state, by slot (the order their states were made, when
    /// none was released).
    package var keys: [RuntimeKey] {
        guard !free.isEmpty else { return slotKeys }
        return slotKeys.indices.compactMap { slots[slotKeys[$0]] == $0 ? slotKeys[$0] : nil }
    }

    /// Whether a state's emptied tables should let go of their storage: past the runtimes a view
    /// keeps whole (``RuntimeLanes/maxWhole``), where tens of thousands open at once each kept the
    /// capacity of its largest size. With fewer they keep it: a table made again for every
    /// request, task or admission cost the views a few percent (`tasks` a fifth).
    package var letsGoOfEmptyTables: Bool { states.count > RuntimeLanes.maxWhole }

    /// Lets slot `slot`'s `table` give up its storage when it is empty and
    /// ``letsGoOfEmptyTables``.
    package mutating func letGoIfEmpty<Key, Value>(_ table: WritableKeyPath<State, SmallTable<Key, Value>>, of slot: Int) {
        guard letsGoOfEmptyTables, states[slot][keyPath: table].isEmpty else { return }
        states[slot][keyPath: table].letGo()
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
        let made: Int
        if let reused = free.popLast() {
            made = reused
            states[made] = make()
            slotKeys[made] = key
        } else {
            made = states.count
            // A quarter more at a time, not twice: past tens of thousands of runtimes open at
            // once, a doubled table is mostly room (78,126 states in room for 131,072).
            if states.count == states.capacity {
                let room = states.count + max(16, states.count / 4)
                states.reserveCapacity(room)
                slotKeys.reserveCapacity(room)
            }
            states.append(make())
            slotKeys.append(key)
        }
        slots[key] = made
        lastKey = key
        lastSlot = made
        return made
    }

    /// Lets go of slot `i`'s state, leaving `empty` there (what its storage held goes now), and
    /// of the slot, which the next runtime to need one is given. A later event of the same
    /// runtime starts it a new state, so release only a state that is as a new one would be.
    package mutating func release(_ i: Int, leaving empty: State) {
        slots[slotKeys[i]] = nil
        states[i] = empty
        free.append(i)
        if lastSlot == i { lastSlot = -1 }
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
