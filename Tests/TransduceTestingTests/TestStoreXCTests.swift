import Transduce
import TransduceTesting
import XCTest

/// The test store from XCTest: an exhaustive test passes, and a wrong assertion is a failure of
/// the running test case, at the assertion's line, with the diff.
final class TestStoreXCTests: XCTestCase {
    /// Failures recorded while `capturing`; any other failure fails the test as usual.
    private var recorded: [(description: String, line: Int)] = []
    private var capturing = false

    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
    ) {
        guard capturing else {
            return super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
        recorded.append((description, lineNumber))
    }

    func testACheckoutIsTestedExhaustively() async throws {
        let clock = TestClock()
        let store = TestStore(of: Checkout.self, initialState: .init(), env: .init(clock: clock))
        await store.send(.add("tea", 3)) {
            $0.items = ["tea"]
            $0.total = 3
        }
        await store.send(.pay) { $0.status = "paying" }
        try await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(1))
        await store.receive(.paid(3)) { $0.status = "paid 3" }
        await store.receive(.receipt) { $0.receipts = 1 }
        await store.finish()
        XCTAssertEqual(store.state, Checkout.State(items: ["tea"], total: 3, status: "paid 3", receipts: 1))

        capturing = true
        let line = #line + 1
        await store.send(.add("jam", 2)) { $0.total = 5 }
        capturing = false
        XCTAssertEqual(recorded.count, 1)
        XCTAssertEqual(recorded.first?.line, line)
        XCTAssertTrue(recorded.first?.description.contains("+     \"jam\"") == true, "\(recorded)")
    }
}
