import Testing
import TransduceTestSupport

@testable import TransduceTrace

/// The child of ``OracleTraces``: runs its seeds one after another and writes each trace to a
/// file. Runs only when the parent starts this test bundle with `TRANSDUCE_ORACLE_TRACES`.
@Suite struct OracleTraceChild {
    @Test(.enabled(if: OracleTraces.request != nil, "only as the child of OracleTraces.record"))
    func recordTheSeeds() async throws {
        let (seeds, directory) = try #require(OracleTraces.request)
        for seed in seeds {
            let trace = try await OracleTraces.run(seed)
            try TraceFileWriter.write(trace, to: OracleTraces.path(of: seed, in: directory))
        }
    }
}
