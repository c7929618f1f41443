/// A key → value table sized for one runtime's open state in a streaming pass: the requests it
/// has waiting, its live tasks, its queued admissions.
///
/// A runtime has a few of each open at once, and a dictionary's storage for a few entries (its
/// header, bitmap and power-of-two buckets) is two to three times an array's: in a trace of a
/// runtime per connection, tens of thousands of such tables are open together. Up to
/// ``maxLinear`` entries sit in one array in the order they came, found by a walk from the
/// oldest (what a pass asks for first: admissions enter, and requests mostly resume, in order);
/// past that (a damaged or unusual trace's thousands) in a dictionary, so no lookup walks far.
/// Emptied, it keeps its array's storage until ``letGo()``.
package struct SmallTable<Key: Hashable, Value> {
    fileprivate enum Storage {
        case few([(key: Key, value: Value)])
        case many([Key: Value])
    }
    private var storage = Storage.few([])

    /// The most entries kept in the array.
    package static var maxLinear: Int { 16 }

    package init() {}

    /// How many entries it has.
    package var count: Int {
        switch storage {
        case .few(let entries): entries.count
        case .many(let table): table.count
        }
    }

    package var isEmpty: Bool { count == 0 }

    /// The value of `key`; setting nil removes it.
    package subscript(key: Key) -> Value? {
        get {
            switch storage {
            case .few(let entries): entries.first { $0.key == key }?.value
            case .many(let table): table[key]
            }
        }
        set {
            if let newValue { set(newValue, for: key) } else { removeValue(forKey: key) }
        }
    }

    private mutating func set(_ value: Value, for key: Key) {
        switch storage {
        case .few(var entries):
            // Out of the enum while changed, so the array is not copied.
            storage = .few([])
            if let i = entries.firstIndex(where: { $0.key == key }) {
                entries[i].value = value
            } else if entries.count < Self.maxLinear {
                entries.append((key, value))
            } else {
                var table = [Key: Value](minimumCapacity: entries.count * 2)
                for (k, v) in entries { table[k] = v }
                table[key] = value
                storage = .many(table)
                return
            }
            storage = .few(entries)
        case .many(var table):
            storage = .few([])
            table[key] = value
            storage = .many(table)
        }
    }

    /// Removes `key`'s entry and returns its value (nil when it has none).
    @discardableResult
    package mutating func removeValue(forKey key: Key) -> Value? {
        switch storage {
        case .few(var entries):
            guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
            storage = .few([])
            let value = entries.remove(at: i).value
            storage = .few(entries)
            return value
        case .many(var table):
            storage = .few([])
            let value = table.removeValue(forKey: key)
            // Emptied: back to the array (a table past the linear walk is rare and short-lived).
            storage = table.isEmpty ? .few([]) : .many(table)
            return value
        }
    }

    /// Gives up its storage (an emptied table keeps it otherwise).
    package mutating func letGo() { storage = .few([]) }

    /// Its entries (in the order they came while it holds few).
    package var entries: [(key: Key, value: Value)] {
        switch storage {
        case .few(let entries): entries
        case .many(let table): table.map { ($0.key, $0.value) }
        }
    }

    /// Its values (in the order they came while it holds few).
    package var values: [Value] { entries.map(\.value) }

    /// Calls `body` with each entry (in the order they came while it holds few), making no array.
    package func forEach(_ body: (Key, Value) throws -> Void) rethrows {
        switch storage {
        case .few(let entries): for (k, v) in entries { try body(k, v) }
        case .many(let table): for (k, v) in table { try body(k, v) }
        }
    }
}

extension SmallTable: Sendable where Key: Sendable, Value: Sendable {}
extension SmallTable.Storage: Sendable where Key: Sendable, Value: Sendable {}
