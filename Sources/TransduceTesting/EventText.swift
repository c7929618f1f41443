/// An event as a test writes it: `.found(["swift"])` for an enum case, the value's description
/// otherwise. What failures of the test store and the replay name events by.
func eventText(_ event: Any) -> String {
    let text = String(describing: event)
    return Mirror(reflecting: event).displayStyle == .enum ? "." + text : text
}
