/// The best `capacity` of a stream of values by `better`, in a binary heap whose root is the
/// worst kept: O(log capacity) an insertion, memory for `capacity` values whatever the stream.
package struct TopHeap<Element> {
    private var heap: [Element] = []
    let capacity: Int
    /// Whether the first is better (kept before) the second.
    let better: (Element, Element) -> Bool

    package init(capacity: Int, better: @escaping (Element, Element) -> Bool) {
        self.capacity = capacity
        self.better = better
    }

    package mutating func insert(_ x: Element) {
        if heap.count < capacity {
            heap.append(x)
            var i = heap.count - 1
            while i > 0, better(heap[(i - 1) / 2], heap[i]) {
                heap.swapAt(i, (i - 1) / 2)
                i = (i - 1) / 2
            }
        } else if let worst = heap.first, better(x, worst) {
            heap[0] = x
            var i = 0
            while true {
                // The two children by hand: an array literal here was an allocation per level.
                var worse = i
                let left = 2 * i + 1
                if left < heap.count && better(heap[worse], heap[left]) { worse = left }
                if left + 1 < heap.count && better(heap[worse], heap[left + 1]) { worse = left + 1 }
                guard worse != i else { break }
                heap.swapAt(i, worse)
                i = worse
            }
        }
    }

    /// What it kept, best first. (Generic, so each comparison copies both values through their
    /// witnesses: a caller with many rows of a concrete type sorts ``kept`` itself.)
    package func sortedBest() -> [Element] { heap.sorted(by: better) }

    /// What it kept, in no order.
    package var kept: [Element] { heap }
}
