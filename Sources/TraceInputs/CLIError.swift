/// trace-view's exit statuses: the one list the code throws and the help describes.
package enum ExitStatus: Int32, CaseIterable {
    case success = 0
    /// `check` found broken invariants; `diff`: a `--fail-on` rule held.
    case invariantsBroken = 1
    /// A wrong command, option or value (sysexits' EX_USAGE).
    case usage = 64
    /// Input that cannot be read, or was damaged (EX_DATAERR).
    case data = 65
    /// The trace has no such runtime, process, dispatch or event (EX_NOINPUT).
    case nothingSelected = 66
    /// `record`: the command ran but recorded no transduce event (EX_UNAVAILABLE).
    case recordedNothing = 69
    /// trace-view itself failed (EX_SOFTWARE).
    case internalError = 70
    /// `record`: LTTng's session daemon went away while the command ran (EX_OSERR).
    case sessionDaemonGone = 71
    /// `record`: the file system of the trace filled up; a view: its temporary copy of the
    /// input could not be made or written (EX_IOERR).
    case diskFull = 74
    /// `record`: LTTng's consumer daemon, which writes the trace, went away (EX_TEMPFAIL).
    case consumerGone = 75
    /// `export --otlp-endpoint`: the collector could not be reached, or refused the spans
    /// (EX_PROTOCOL).
    case collectorFailed = 76
    /// `export --otlp-endpoint`: the collector took the spans but rejected some (an OTLP partial
    /// success), without `--allow-partial`.
    case spansRejected = 77
    /// `record`: LTTng discarded events (its channel was full), without `--allow-loss`.
    case eventsLost = 79
    /// A view that holds the trace in memory was given more events than it may hold.
    case tooLarge = 80

    /// What the help says of it.
    package var meaning: String {
        switch self {
        case .success: "success"
        case .invariantsBroken: "check found broken invariants; diff: a --fail-on rule held"
        case .usage: "usage error"
        case .data: "unreadable or damaged input"
        case .nothingSelected:
            "no such input (a file that does not exist or cannot be read; a runtime, process, dispatch or event the trace does not have)"
        case .recordedNothing: "record's command recorded no transduce event"
        case .internalError: "trace-view failed"
        case .sessionDaemonGone: "record: LTTng's session daemon went away while the command ran"
        case .diskFull:
            "record: the trace's file system filled up; a view of several passes: its temporary copy of the input (TMPDIR) could not be written"
        case .consumerGone: "record: LTTng's consumer daemon (the trace's writer) went away"
        case .collectorFailed: "export --otlp-endpoint: the collector could not be reached or refused the spans"
        case .spansRejected:
            "export --otlp-endpoint: the collector rejected some spans (a partial success), and --allow-partial was not given"
        case .eventsLost: "record: LTTng discarded events (a full channel), and --allow-loss was not given"
        case .tooLarge: "a view that holds the trace in memory was given more events than it may hold (TRACE_VIEW_MAX_EVENTS)"
        }
    }
}

/// A failure the user can fix: printed as one line, exits with `status`.
package struct CLIError: Error {
    package var message: String
    package var status: Int32

    package init(message: String, status: Int32) {
        self.message = message
        self.status = status
    }

    package init(_ message: String, _ status: ExitStatus) { self.init(message: message, status: status.rawValue) }

    package static func usage(_ message: String) -> CLIError { CLIError(message, .usage) }
    package static func data(_ message: String) -> CLIError { CLIError(message, .data) }
}
