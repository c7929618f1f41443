/// A minimal first-in-first-out queue over an array with a moving head; O(1) amortized push and
/// pop. Storage is compacted when the consumed prefix dominates.
@usableFromInline
struct FIFO<Element> {
    @usableFromInline
    var storage: [Element] = []
    @usableFromInline
    var head = 0

    @inlinable
    init() {}

    @inlinable
    var count: Int { storage.count - head }
    @inlinable
    var isEmpty: Bool { head == storage.count }

    @inlinable
    mutating func append(_ element: Element) { storage.append(element) }

    @inlinable
    mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Removes and returns every element, oldest first.
    @inlinable
    mutating func removeAll() -> ArraySlice<Element> {
        let rest = storage[head...]
        storage = []
        head = 0
        return rest
    }
}
