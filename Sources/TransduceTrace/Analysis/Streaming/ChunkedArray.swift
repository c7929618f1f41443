/// An append-only array in chunks of a fixed size: what a pass gathers while it holds its peak
/// (the requests it missed) grows by a chunk at a time, never by doubling: an array of 630,000
/// keys had grown to room for a million (16 MB for 10), and each doubling held both copies.
package struct ChunkedArray<Element>: RandomAccessCollection {
    /// Elements a chunk holds (the last one may hold fewer).
    package static var chunkSize: Int { 4_096 }
    private var chunks: [[Element]] = []
    package private(set) var count = 0

    package init() {}

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }

    package subscript(i: Int) -> Element {
        precondition(i >= 0 && i < count, "index \(i) of \(count)")
        return chunks[i / Self.chunkSize][i % Self.chunkSize]
    }

    package mutating func append(_ element: Element) {
        if count % Self.chunkSize == 0 {
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }
}

extension ChunkedArray: Sendable where Element: Sendable {}
