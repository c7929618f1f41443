import Synchronization
import Testing

@testable import Transduce

/// A thread-safe log of strings.
final class TraceLog: Sendable {
    private let items = Lock<[String]>([])
    func append(_ s: String) { items.withLock { $0.append(s) } }
    var all: [String] { items.withLock { $0 } }
}

struct Later: Error, Equatable {}

/// Expects `body` to throw an error equal to `expected`.
func expectThrows<E: Error & Equatable>(
    _ expected: E, sourceLocation: SourceLocation = #_sourceLocation, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected \(expected) to be thrown, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as E {
        #expect(error == expected, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(expected), got \(error)", sourceLocation: sourceLocation)
    }
}

func expectCancellation(
    sourceLocation: SourceLocation = #_sourceLocation, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected CancellationError, nothing was thrown", sourceLocation: sourceLocation)
    } catch is CancellationError {
    } catch {
        Issue.record("expected CancellationError, got \(error)", sourceLocation: sourceLocation)
    }
}
