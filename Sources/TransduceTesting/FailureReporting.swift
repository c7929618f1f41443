internal import Foundation
internal import Testing
internal import XCTest

/// Records a test failure saying `message`, at the given place, in whichever framework runs the
/// current test: Swift Testing's `Issue.record` inside a Swift Testing test, XCTest's `XCTFail`
/// otherwise.
///
/// What this module's assertions report through, at their caller's place; an app's own test
/// helpers can use it the same way, importing neither framework. Outside a Swift Testing test the
/// message also goes to standard error: XCTest drops a failure recorded where no XCTest test runs
/// (a detached task, a plain executable), and a failure must never be lost.
public func reportFailure(
    _ message: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
) {
    if Test.current != nil {
        Issue.record(
            Comment(rawValue: message),
            sourceLocation: SourceLocation(
                fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column)))
        return
    }
    XCTFail(message, file: filePath, line: line)
    FileHandle.standardError.write(Data("\(filePath):\(line): test failure: \(message)\n".utf8))
}

/// Reports an assertion a non-exhaustive ``TestStore`` passed over, without failing the test: as a
/// known issue inside a Swift Testing test, on standard error otherwise (XCTest on Linux has no
/// expected failures).
func reportSkipped(_ message: String, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    let location = SourceLocation(fileID: "\(fileID)", filePath: "\(filePath)", line: Int(line), column: Int(column))
    if Test.current != nil {
        withKnownIssue("skipped assertion", isIntermittent: false, sourceLocation: location) {
            Issue.record(Comment(rawValue: message), sourceLocation: location)
        }
        return
    }
    FileHandle.standardError.write(Data("\(filePath):\(line): skipped assertion: \(message)\n".utf8))
}
