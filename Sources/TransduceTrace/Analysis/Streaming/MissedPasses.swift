/// The passes over the requests a pass of ``ResumeBreakdowns`` missed, in order: first its
/// batches of ``spread`` times the bound (``ResumeBreakdowns/takeMissedBatches(spread:)``), each
/// pass keeping at most the bound; then what those missed again, in batches that fit the bound
/// whole, each pass keeping whatever its windows read (so none is missed a third time).
///
/// A view runs each ``next()`` as a pass of ``ResumeBreakdowns/init(missed:maxKept:keepsWindows:)``
/// and hands back that pass's ``ResumeBreakdowns/takeMissedBatches(spread:)`` with
/// ``missedAgain(_:)``. The order is the same for the same trace and selection.
package struct MissedPasses {
    /// One pass: the requests it breaks down, and the most events it keeps at once.
    package struct Batch {
        package var keys: [TraceIndex.Key]
        package var maxKept: Int
    }

    /// How many times the bound a first-round batch's runtimes saw in all. A runtime keeps what
    /// its open windows can still read (from where the earliest can start), and in a trace of a
    /// runtime per connection that was about half of what it saw at the most (22,000–25,000
    /// events of batches that saw 50,000): twice the bound fits, in half the passes.
    package static let spread = 2

    private var batches: [Batch]
    private var next_ = 0
    private var again: [[TraceIndex.Key]] = []

    /// The passes of `batches` (``ResumeBreakdowns/takeMissedBatches(spread:)`` with ``spread``),
    /// each keeping at most `maxKept`.
    package init(_ batches: [[TraceIndex.Key]], maxKept: Int) {
        self.batches = batches.map { Batch(keys: $0, maxKept: maxKept) }
    }

    /// The next pass, nil when there are no more.
    package mutating func next() -> Batch? {
        if next_ == batches.count, !again.isEmpty {
            // The second round: each batch fits the bound whole, so its pass keeps what it reads.
            batches += again.map { Batch(keys: $0, maxKept: .max) }
            again = []
        }
        guard next_ < batches.count else { return nil }
        defer { next_ += 1 }
        return batches[next_]
    }

    /// What the pass of the last ``next()`` missed again, in batches that fit the bound (its
    /// ``ResumeBreakdowns/takeMissedBatches(spread:)``, spread 1): passes after the first round.
    package mutating func missedAgain(_ batches: [[TraceIndex.Key]]) {
        again += batches
    }

    /// Passes run or to run, and how many of them are of requests missed again.
    package var passes: (all: Int, again: Int) {
        (batches.count + again.count, batches.count(where: { $0.maxKept == .max }) + again.count)
    }
}
