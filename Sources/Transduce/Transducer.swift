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
    /// The state `transduce` changes; the host owns it and hands out snapshots.
    associatedtype State
    /// What is dispatched to the runtime and transduced, one at a time.
    associatedtype Event
    /// Dependencies the host captures once and hands to actions and tasks (`Void` when none).
    associatedtype Env = Void
    /// What a `request` caller gets back (``response(state:event:)``; `Void` when nothing).
    associatedtype Response = Void
    /// Defaulted associated type rather than a typealias: a typealias breaks conformers that omit
    /// `Env`/`Response`, depending on the order of the files that declare them.
    associatedtype Effect = TransducerEffect<Event, Env, Response>
    /// What a task's operation returns: settle, or an event to re-enter as request or response.
    typealias TaskReturn = Transduce.TaskReturn<Event>
    /// The dispatch handle of this transducer's hosts (`post`, `send`, `request`, `uniqueRequest`).
    typealias Input = TransducerInput<Event, Response>

    /// The state a host starts in when it is given none.
    static var initialState: State { get }
    /// The one place state changes: applies `event` to `state` and returns the work that follows.
    /// Pure: runs on the host's isolation with the gate held, must not block, and its effects run
    /// only after it returns.
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
