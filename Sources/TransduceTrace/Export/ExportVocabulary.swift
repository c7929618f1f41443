/// Every attribute the OpenTelemetry export (``OTLPTraceExport``) writes and every argument the
/// Perfetto export (``PerfettoTraceExporter``) gives a slice: the one list the exports write
/// from, the documentation's table is made from, and the tests hold both exports to.
///
/// OpenTelemetry has no semantic conventions for async runtimes yet (semantic-conventions
/// #1688): where one of its general conventions fits (`service.name`, `host.name`,
/// `process.pid`, `error.type`) it is used, and the rest are the `transduce.` namespace's own.
public enum ExportAttribute: String, CaseIterable, Sendable {
    /// OTLP resource: the runtime's transducer type (`transduce` when the trace lost its start).
    case serviceName = "service.name"
    /// OTLP resource: the host the process ran on, where the trace says.
    case hostName = "host.name"
    /// OTLP resource: the OS process id, where the trace has one.
    case processPID = "process.pid"
    /// OTLP resource: the runtime's id within its process.
    case runtime = "transduce.runtime"
    /// OTLP resource: the runtime's host type (`BaseRuntime`, `EffectObservable`, …).
    case hostKind = "transduce.host"
    /// OTLP request and part spans, links: a dispatch id (the request's, a re-entry's, the
    /// linked request's).
    case dispatch = "transduce.dispatch"
    /// OTLP request span: the dispatch style (`send`, `request`, `uniqueRequest`, …).
    case style = "transduce.style"
    /// OTLP request span: the requested event's label.
    case event = "transduce.event"
    /// OTLP request span: how it resumed (`response`, `nil`, `error`).
    case outcome = "transduce.outcome"
    /// OTLP request span: the task that made the request, when a task did.
    case originTask = "transduce.origin_task"
    /// OTLP request span: the error it resumed with (with status ERROR).
    case errorType = "error.type"
    /// OTLP part span: which part of the latency it is (``LatencyBreakdown/Part/Kind``).
    case part = "transduce.part"
    /// OTLP part span and span event: a cycle id.
    case cycle = "transduce.cycle"
    /// OTLP part span and span event: a task instance id.
    case task = "transduce.task"
    /// OTLP span event: how long that cycle held the gate during the wait.
    case heldNanos = "transduce.held_ns"
    /// OTLP span event: why the task was cancelled.
    case reason = "transduce.reason"
    /// OTLP span link: how the part's task came from the linked request (`joined`, `replaced`,
    /// `carried`).
    case link = "transduce.link"
    /// Perfetto slice argument: a cycle's id.
    case perfettoCycle = "cycle"
    /// Perfetto slice argument: a task instance's id.
    case perfettoTask = "task"
    /// Perfetto slice argument: a request's or a dispatch's id.
    case perfettoDispatch = "dispatch"
    /// Perfetto slice argument: how a request resumed (`not resumed` at the trace's end).
    case perfettoOutcome = "outcome"
    /// Perfetto slice argument: the W3C trace id a request was dispatched under.
    case perfettoTraceID = "trace_id"

    /// Which export writes it: `OTLP` or `Perfetto`.
    public var export: String { rawValue.contains(".") ? "OTLP" : "Perfetto" }

    /// Where it appears, its type, whose convention it follows, and what it holds.
    public var entry: (place: String, type: String, convention: String, meaning: String) {
        let ours = "transduce"
        let otel = "OpenTelemetry"
        switch self {
        case .serviceName: return ("resource", "string", otel, "the runtime's transducer type")
        case .hostName: return ("resource", "string", otel, "the host the process ran on, where the trace says")
        case .processPID: return ("resource", "int", otel, "the OS process id, where the trace has one")
        case .runtime: return ("resource", "int", ours, "the runtime's id within its process")
        case .hostKind: return ("resource", "string", ours, "the runtime's host type (BaseRuntime, EffectObservable, …)")
        case .dispatch:
            return (
                "request span, part span, link", "int", ours, "a dispatch id: the request's, a re-entry's, the linked request's"
            )
        case .style: return ("request span", "string", ours, "the dispatch style (send, request, uniqueRequest, …)")
        case .event: return ("request span", "string", ours, "the requested event's label")
        case .outcome: return ("request span", "string", ours, "how it resumed (response, nil, error)")
        case .originTask: return ("request span", "int", ours, "the task that made the request, when a task did")
        case .errorType: return ("request span", "string", otel, "the error it resumed with (status ERROR)")
        case .part: return ("part span", "string", ours, "which part of the latency (admissionWait, transduce, task, …)")
        case .cycle: return ("part span, span event", "int", ours, "a cycle id")
        case .task: return ("part span, span event", "int", ours, "a task instance id")
        case .heldNanos: return ("span event", "int", ours, "how long that cycle held the gate during the wait")
        case .reason: return ("span event", "string", ours, "why the task was cancelled")
        case .link:
            return ("link", "string", ours, "how the part's task came from the linked request (joined, replaced, carried)")
        case .perfettoCycle: return ("slice argument", "uint", ours, "a cycle's id")
        case .perfettoTask: return ("slice argument", "uint", ours, "a task instance's id")
        case .perfettoDispatch: return ("slice argument", "uint", ours, "a request's or a dispatch's id")
        case .perfettoOutcome: return ("slice argument", "string", ours, "how a request resumed (not resumed at the trace's end)")
        case .perfettoTraceID: return ("slice argument", "string", ours, "the W3C trace id a request was dispatched under")
        }
    }

    /// The registry as the documentation's Markdown table.
    public static var markdownTable: String {
        (["| attribute | export | where | type | convention | what it holds |", "|---|---|---|---|---|---|"]
            + allCases.map { a in
                let e = a.entry
                return "| `\(a.rawValue)` | \(a.export) | \(e.place) | \(e.type) | \(e.convention) | \(e.meaning) |"
            }).joined(separator: "\n")
    }
}

/// Every span, span-event, slice and instant name the OTLP and Perfetto exports write, as a
/// pattern (`<n>` a number, `<…>` any text): what the documentation lists and the tests hold the
/// exports to.
public enum ExportName: CaseIterable, Sendable {
    /// OTLP request span, and Perfetto request slice.
    case request
    /// OTLP part spans (``LatencyBreakdown/Part``'s titles).
    case admissionWait, reentryWait, transduce, action, asyncAction, task, sharedTask, replacedTask, cancelledTask, resume
    /// OTLP span events on a wait and a task.
    case heldByCycle, heldByOthers, taskCancelled
    /// Perfetto slices: a cycle (its request `style(label)`, or `?` where the trace lost it; its
    /// enter lost), an action, a task.
    case perfettoCycle, perfettoCycleUnseen, perfettoAction, perfettoAsyncAction, perfettoTask
    /// Perfetto instants: a dispatch, a join, a resume, a stop.
    case perfettoDispatch, perfettoJoin, perfettoResume, perfettoStop

    /// Which export writes it, what it names, and its pattern.
    public var entry: (export: String, what: String, pattern: String) {
        switch self {
        case .request: ("OTLP, Perfetto", "request span / slice", "<style>(<label>)")
        case .admissionWait: ("OTLP", "part span", "admission wait")
        case .reentryWait: ("OTLP", "part span", "re-entry wait (dispatch #<n>)")
        case .transduce: ("OTLP", "part span", "cycle #<n> <label>")
        case .action: ("OTLP", "part span", "cycle #<n> <label>: action")
        case .asyncAction: ("OTLP", "part span", "cycle #<n> <label>: async action")
        case .task: ("OTLP", "part span", "task <task>")
        case .sharedTask: ("OTLP", "part span", "shared task <task> (joined)")
        case .replacedTask: ("OTLP", "part span", "task <task> until replaced")
        case .cancelledTask: ("OTLP", "part span", "task <task> until cancelled")
        case .resume: ("OTLP", "part span", "resume")
        case .heldByCycle: ("OTLP", "span event", "held by cycle #<n> <label>")
        case .heldByOthers: ("OTLP", "span event", "held by other cycles")
        case .taskCancelled: ("OTLP", "span event", "task cancelled: <reason>")
        case .perfettoCycle: ("Perfetto", "slice", "cycle <request> (<outcome>)")
        case .perfettoCycleUnseen: ("Perfetto", "slice", "cycle (<outcome>)")
        case .perfettoAction: ("Perfetto", "slice", "action")
        case .perfettoAsyncAction: ("Perfetto", "slice", "async action")
        case .perfettoTask: ("Perfetto", "slice", "<name> task <policy>: <outcome>")
        case .perfettoDispatch: ("Perfetto", "instant", "dispatch <style>(<label>)")
        case .perfettoJoin: ("Perfetto", "instant", "join")
        case .perfettoResume: ("Perfetto", "instant", "resume: <outcome>")
        case .perfettoStop: ("Perfetto", "instant", "stop: <reason>")
        }
    }

    /// The registry as the documentation's Markdown table.
    public static var markdownTable: String {
        (["| name | export | what |", "|---|---|---|"]
            + allCases.map { "| `\($0.entry.pattern)` | \($0.entry.export) | \($0.entry.what) |" }).joined(separator: "\n")
    }
}
