import Foundation
import TraceInputs
import TransduceTrace

/// Where and how `export --otlp-endpoint`/`--send` sends spans, resolved as the OpenTelemetry
/// specification's exporter configuration says: a flag first, then the signal's own variable
/// (`OTEL_EXPORTER_OTLP_TRACES_*`), then the general one (`OTEL_EXPORTER_OTLP_*`), then the
/// default. A pure value: `resolve` reads what it is given, never the process.
struct OTLPSettings: Equatable {
    enum Compression: String, Equatable {
        case none
        case gzip
    }

    /// The full URL POSTs go to (`…/v1/traces`).
    var endpoint: String
    var encoding: OTLPEncoding = .protobuf
    var compression: Compression = .none
    /// Seconds each batch may take, retries included.
    var timeout = 10.0
    /// Extra request headers (authentication, typically), names lowercased.
    var headers: [Header] = []
    /// PEM files: the CA certificates to trust instead of the system's, and the client's
    /// certificate and key for mutual TLS.
    var certificate: String?
    var clientCertificate: String?
    var clientKey: String?

    struct Header: Equatable {
        var name: String
        var value: String
    }

    static let defaultEndpoint = "http://localhost:4318/v1/traces"
    static let signalPath = "/v1/traces"

    /// The flags that set what the variables also can (the variables' names follow them).
    static let flags = ["otlp-endpoint", "otlp-protocol", "compression", "timeout", "otlp-headers", "certificate"]

    /// The settings from `options` (the command's flags) and `environment`; a wrong value is a
    /// usage error naming the flag or variable it came from.
    static func resolve(options: [String: String], environment: [String: String]) throws(CLIError) -> OTLPSettings {
        /// The flag's value, else the traces variable's, else the general one's, with its source.
        func value(_ flag: String?, _ variable: String) -> (text: String, source: String)? {
            if let flag, let text = options[flag] { return (text, "--\(flag)") }
            for name in ["OTEL_EXPORTER_OTLP_TRACES_" + variable, "OTEL_EXPORTER_OTLP_" + variable] {
                if let text = environment[name], !text.trimmingCharacters(in: .whitespaces).isEmpty { return (text, name) }
            }
            return nil
        }

        var settings = OTLPSettings(endpoint: defaultEndpoint)
        if let url = options["otlp-endpoint"] {
            // A URL without a path gets the signal's (as trace-view has always done).
            settings.endpoint = try checkedURL(url, source: "--otlp-endpoint", appendingPathWhenNone: true)
        } else if let url = environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], !url.isEmpty {
            // The signal's variable is used as it is.
            settings.endpoint = try checkedURL(url, source: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", appendingPathWhenNone: false)
        } else if let url = environment["OTEL_EXPORTER_OTLP_ENDPOINT"], !url.isEmpty {
            // The general one is a base: the signal's path is appended to it.
            var base = try checkedURL(url, source: "OTEL_EXPORTER_OTLP_ENDPOINT", appendingPathWhenNone: false)
            while base.hasSuffix("/") { base.removeLast() }
            settings.endpoint = base + signalPath
        }
        if let (text, source) = value("otlp-protocol", "PROTOCOL") {
            switch text.trimmingCharacters(in: .whitespaces) {
            case "http/protobuf": settings.encoding = .protobuf
            case "http/json": settings.encoding = .json
            case "grpc":
                throw .usage("\(source)=grpc: trace-view sends OTLP over HTTP only (http/protobuf or http/json)")
            default: throw .usage("\(source) takes http/protobuf or http/json, not '\(text)'")
            }
        }
        if let (text, source) = value("compression", "COMPRESSION") {
            guard let compression = Compression(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw .usage("\(source) takes gzip or none, not '\(text)'")
            }
            settings.compression = compression
        }
        if let text = options["timeout"] {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 3600 else {
                throw .usage("--timeout takes seconds, more than 0 and at most 3600, not '\(text)'")
            }
            settings.timeout = seconds
        } else if let (text, source) = value(nil, "TIMEOUT") {
            // The variables are in milliseconds (the specification's unit).
            guard let ms = Double(text.trimmingCharacters(in: .whitespaces)), ms.isFinite, ms > 0, ms <= 3_600_000 else {
                throw .usage("\(source) takes milliseconds, more than 0 and at most 3600000, not '\(text)'")
            }
            settings.timeout = ms / 1000
        }
        if let (text, source) = value("otlp-headers", "HEADERS") {
            settings.headers = try headers(text, source: source)
        }
        settings.certificate = try file(value("certificate", "CERTIFICATE"))
        settings.clientCertificate = try file(value(nil, "CLIENT_CERTIFICATE"))
        settings.clientKey = try file(value(nil, "CLIENT_KEY"))
        return settings
    }

    /// `url` when it is an http:// or https:// URL with a host and nothing a request line
    /// cannot carry; with `appendingPathWhenNone`, a URL without a path gets the signal's.
    static func checkedURL(_ url: String, source: String, appendingPathWhenNone: Bool) throws(CLIError) -> String {
        let lower = url.lowercased()
        guard let scheme = ["http://", "https://"].first(where: { lower.hasPrefix($0) }) else {
            throw .usage("\(source): \(Escaping.oneLine(url)) is not an http:// or https:// URL")
        }
        let rest = url.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.hasPrefix(":"),
            !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0.value > 0x7E })
        else { throw .usage("\(source): \(Escaping.oneLine(url)) is not an http(s)://HOST[:PORT][/PATH] URL") }
        if appendingPathWhenNone {
            let path = rest.dropFirst(authority.count)
            if path.isEmpty || path == "/" { return scheme + authority + signalPath }
        }
        return url
    }

    /// `key=value` pairs separated by commas (the W3C Baggage form the specification uses),
    /// values percent-decoded; a name that is not an HTTP token, or a value with a line break
    /// or a control character, is refused (it could add headers of its own).
    static func headers(_ text: String, source: String) throws(CLIError) -> [Header] {
        var headers: [Header] = []
        for entry in text.split(separator: ",") {
            let trimmed = entry.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let eq = trimmed.firstIndex(of: "=") else {
                throw .usage("\(source): '\(Escaping.oneLine(trimmed))' is not a key=value pair")
            }
            let name = trimmed[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            let raw = trimmed[trimmed.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            let token = Set("!#$%&'*+-.^_`|~abcdefghijklmnopqrstuvwxyz0123456789")
            guard !name.isEmpty, name.allSatisfy({ token.contains($0) }) else {
                throw .usage("\(source): '\(Escaping.oneLine(name))' is not a header name")
            }
            guard let value = raw.removingPercentEncoding,
                !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F })
            else { throw .usage("\(source): the value of \(name) is not percent-encoded text without control characters") }
            headers.append(Header(name: name, value: value))
        }
        return headers
    }

    private static func file(_ setting: (text: String, source: String)?) throws(CLIError) -> String? {
        guard let (path, source) = setting else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CLIError("\(source): cannot read \(Escaping.oneLine(path))", .nothingSelected)
        }
        return path
    }
}
