extension TraceFileIndex {
    /// The index's spans, in order, kept in chunks of a fixed size.
    ///
    /// Why chunks: a trace of a runtime per connection has a span for nearly every dispatch
    /// (1.1 million, 44 MB, at 10M events in 78,126 runtimes). One array grown by doubling held
    /// the old storage and the new at once while the index was built (126 MB), and joining chunks
    /// into one array at the end held both again; chunks hold what they hold and one chunk more.
    package struct Spans: RandomAccessCollection, MutableCollection, Equatable, Sendable, ExpressibleByArrayLiteral {
        private var chunks: [[Span]] = []
        private static let size = 2_048
        package private(set) var count = 0

        package init() {}

        package init(_ spans: some Sequence<Span>) {
            for s in spans { append(s) }
        }

        package init(arrayLiteral spans: Span...) { self.init(spans) }

        package var startIndex: Int { 0 }
        package var endIndex: Int { count }

        package subscript(i: Int) -> Span {
            get {
                precondition(i >= 0 && i < count, "span index out of range")
                return chunks[i / Self.size][i % Self.size]
            }
            set {
                precondition(i >= 0 && i < count, "span index out of range")
                chunks[i / Self.size][i % Self.size] = newValue
            }
        }

        /// Adds `span` after the others.
        package mutating func append(_ span: Span) {
            if count % Self.size == 0 {
                chunks.append([])
                chunks[chunks.count - 1].reserveCapacity(Self.size)
            }
            chunks[chunks.count - 1].append(span)
            count += 1
        }

        package static func == (a: Spans, b: Spans) -> Bool { a.count == b.count && a.elementsEqual(b) }
    }
}
