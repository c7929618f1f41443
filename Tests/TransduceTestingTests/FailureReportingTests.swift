import Testing
import Transduce
import TransduceTesting
import XCTest

/// From Swift Testing: the failure is an issue of the running test, with the message and the
/// caller's place.
@Suite struct FailureReportingTests {
    @Test func aFailureIsAnIssueOfTheRunningTest() {
        let line: UInt = #line + 2
        withKnownIssue {
            reportFailure("the state differs")
        } matching: { issue in
            issue.comments.map(\.rawValue) == ["the state differs"] && issue.sourceLocation?.line == Int(line)
                && issue.sourceLocation?.fileID == #fileID
        }
    }
}

/// From XCTest: the failure is recorded by the running test case, with the message and line;
/// the test store works there too, its failures the running test case's.
final class FailureReportingXCTests: XCTestCase {
    /// Failures recorded while `capturing`; any other failure (this test's own assertions) fails
    /// the test as usual.
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

    func testAFailureIsRecordedByTheRunningTestCase() {
        capturing = true
        let line = #line + 1
        reportFailure("a task is still running")
        capturing = false
        XCTAssertEqual(recorded.count, 1)
        XCTAssertEqual(recorded.first?.line, line)
        XCTAssertTrue(recorded.first?.description.contains("a task is still running") == true, "\(recorded)")
    }

    /// An exhaustive test store from XCTest; a wrong assertion is a failure of the running test
    /// case, at the assertion's line, with the diff.
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
