import Foundation

/// The run's table: every figure in a fixed order with its target (Thresholds/transduce-bench.tsv)
/// and whether it is met, the instruction counts of Benchmarks/callgrind.sh's output when given,
/// and the same as JSON with `--json`.
enum Table {
    static let order = [
        "send_ns", "actor_hop_ns", "send_vs_actor", "send_4x_ns", "actor_4x_ns", "send_4x_vs_actor", "request_task_ns",
        "task_floor_ns", "request_task_vs_floor", "observable_send_ns", "model_method_ns", "observable_send_vs_model",
        "disabled_ratio", "ring_ratio", "send_cpu_ns", "traced_send_cpu_ns", "traced_send_ratio", "send_instructions",
        "traced_send_instructions", "traced_send_instructions_ratio", "record_instructions", "record_ns", "record_1p_ns",
        "record_2p_ns", "record_2p_ratio", "clock_ns", "clock_gettime_ns", "clock_offset_ns", "c_floor_ns",
        "record_vs_floor", "c_claimed_floor_ns", "c_single_floor_ns", "single_vs_claimed_floor", "lttng_ns",
        "ring_record_ns", "lttng_vs_record", "resume_record_ns", "slow_trigger_ratio", "view_1m_s", "view_1m_rss_mb",
        "live_1m_rss_mb", "dump_mb_s", "dump_vs_write", "dump_extra_mb", "record_lossless_discarded", "ctf_vs_babeltrace",
    ]

    /// Instruction counts from Benchmarks/callgrind.sh's output ("key: value …" lines).
    static func callgrindFigures(_ path: String) throws -> [Figure] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let pair = try NSRegularExpression(pattern: "(?<![a-z_])([a-z_]+): ([0-9.]+)")
        var counted: [String: Double] = [:]
        for match in pair.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            guard let key = Range(match.range(at: 1), in: text), let number = Range(match.range(at: 2), in: text),
                let value = Double(text[number])
            else { continue }
            counted[String(text[key])] = value
        }
        return ["send_instructions", "traced_send_instructions", "traced_send_instructions_ratio", "record_instructions"]
            .compactMap { key in
                counted[key].map {
                    Figure(key: key, value: $0, min: $0, max: $0, unit: key.hasSuffix("ratio") ? "×" : "instr")
                }
            }
    }

    /// Prints the table, writes the JSON when asked.
    @MainActor static func finish(
        _ run: BenchRun, _ figures: [Figure], scaleFailures: [String: String], lttngNote: String
    ) throws {
        let thresholds = try Thresholds()
        let keys = order + ViewScale.keys(sizes: run.scaleSizes.map(\.name), shapes: run.scaleShapes)
        print("")
        print("| key | value | spread | target | met |")
        print("|---|---|---|---|---|")
        var json: [String: Any] = [:]
        var allMet = true
        for key in keys {
            let target = thresholds.target(of: key)
            guard let f = figures.first(where: { $0.key == key }) else {
                if let failure = scaleFailures[key] {
                    print("| \(key) | – | | \(target?.shown ?? "reported") | **failed**: \(failure) |")
                    json[key] = "failed: \(failure)"
                    allMet = false
                    continue
                }
                let why = lttngNote.isEmpty ? "not measured" : lttngNote
                print("| \(key) | – | | \(target?.shown ?? "reported") | \(why) |")
                json[key] = why
                continue
            }
            let met = target.map { $0.met(by: f.value) }
            if met == false { allMet = false }
            let decimals = f.unit == "×" || f.unit == "s" ? 3 : 1
            print(
                "| \(key) | \(fmt(f.value, decimals)) \(f.unit) | \(f.spread) | \(target?.shown ?? "reported") | \(met.map { $0 ? "yes" : "**no**" } ?? "") |"
            )
            json[key] = f.value
        }
        json["quick"] = run.quick
        json["all_targets_met"] = allMet
        if let jsonPath = run.jsonPath {
            let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys, .prettyPrinted])
            try data.write(to: URL(fileURLWithPath: jsonPath))
        }
    }
}
