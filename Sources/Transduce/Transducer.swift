/// A pure state machine plus a description of the work that follows each event.
///
/// A conformer declares its `State`, `Event`, optional `Env` and `Response`, and one function,
/// ``transduce(_:event:)``, which is the only place where state changes. The runtime (a host such
/// as ``BaseRuntime``) owns every effect the function returns.
///
/// ```swift
/// nonisolated enum Counter: Transducer {
///     struct State { var count = 0 }
///     enum Event { case increment }
///     static var initialState: State { .init() }
///     static func transduce(_ state: inout State, event: Event) -> Effect {
///         state.count += 1
///         return .none
///     }
/// }
/// ```
public protocol Transducer: SendableMetatype {
    associatedtype State
    associatedtype Event
    associatedtype Env = Void
    associatedtype Response = Void
    /// Defaulted associated type rather than a typealias: a typealias breaks conformers that omit
    /// `Env`/`Response`, depending on file order (RUNTIME.md A.2).
    associatedtype Effect = TransducerEffect<Event, Env, Response>
    typealias TaskReturn = Transduce.TaskReturn<Event>
    typealias Input = TransducerInput<Event, Response>

    static var initialState: State { get }
    static func transduce(_ state: inout State, event: Event) -> Effect
    /// The result a `request` caller receives when the computation ends with `event`.
    static func response(state: State, event: Event) -> Response
    /// A payload-free name for `event`, used by instruments.
    ///
    /// The default reflects the enum case name (about 70 ns, more when the payload holds strings).
    /// Override it with a `switch` that returns string literals when events are traced on a hot
    /// path; it is only called while an instrument is recording.
    static func traceLabel(of event: Event) -> EventLabel
}

extension Transducer where Response == Void {
    public static func response(state: State, event: Event) -> Response { () }
}

extension Transducer {
    public static func traceLabel(of event: Event) -> EventLabel { EventLabel(reflecting: event) }
}
