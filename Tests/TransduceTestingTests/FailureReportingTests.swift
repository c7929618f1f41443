import Testing
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

/// From XCTest: the failure is recorded by the running test case, with the message and line.
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
}
