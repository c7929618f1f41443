/// How much a ``TestStore`` insists on being told.
public enum Exhaustivity: Equatable, Sendable {
    /// Every state change asserted exactly, every event from a task or a chain received in order,
    /// every task ended by ``TestStore/finish(timeout:fileID:filePath:line:column:)``.
    case on
    /// Only what the test asserts is checked: a state closure's assignments must hold on the
    /// state found, events not received are passed over, and tasks may still run at the end.
    /// With `showSkippedAssertions`, what was passed over is reported as a known issue (Swift
    /// Testing) or on standard error (XCTest), without failing the test; either way it is kept in
    /// ``TestStore/skippedAssertions``.
    case off(showSkippedAssertions: Bool)

    /// Non-exhaustive, passing over silently what the test does not assert.
    public static let off = Exhaustivity.off(showSkippedAssertions: false)
}
