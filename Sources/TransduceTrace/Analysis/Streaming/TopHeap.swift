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
                var worse = i
                for child in [2 * i + 1, 2 * i + 2] where child < heap.count && better(heap[worse], heap[child]) {
                    worse = child
                }
                guard worse != i else { break }
                heap.swapAt(i, worse)
                i = worse
            }
        }
    }

    /// What it kept, best first.
    package func sortedBest() -> [Element] { heap.sorted(by: better) }
}
