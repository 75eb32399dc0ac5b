// `--shard`: which rows of a batch this process takes, given or read from the job engine
// that started it (Kubernetes, Slurm, GNU parallel).

import Glibc
import WatermarkModel

/// A deterministic part of a batch's rows: row k (from 0, in manifest order) belongs to
/// shard `k % count`, so rows appended to a manifest never move earlier rows to another
/// shard.
package struct Shard: Sendable, Equatable {
    package var index: Int
    package var count: Int

    package init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    package func contains(row k: Int) -> Bool { k % count == index }

    /// The job engines' variables `parse` reads for `auto`.
    package static let environmentNames = [
        "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "PARALLEL_SEQ",
    ]

    /// `parse` with the process's own environment.
    package static func parse(_ text: String, count: Int?) -> Result<Shard, Invalid> {
        var env: [String: String] = [:]
        for name in environmentNames {
            if let v = getenv(name) { env[name] = String(cString: v) }
        }
        return parse(text, count: count, environment: env)
    }

    package struct Invalid: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// `INDEX/COUNT` (INDEX from 0), or `auto` from the job engine's environment:
    /// Kubernetes Indexed Jobs (`JOB_COMPLETION_INDEX`; the count is `count`, as the Job's
    /// `completions`), Slurm job arrays (`SLURM_ARRAY_TASK_ID` − `SLURM_ARRAY_TASK_MIN` of
    /// `SLURM_ARRAY_TASK_COUNT`), GNU parallel (`PARALLEL_SEQ`, from 1; the count is `count`).
    package static func parse(_ text: String, count: Int?, environment: [String: String]) -> Result<Shard, Invalid> {
        func shard(_ i: Int, _ n: Int, from: String) -> Result<Shard, Invalid> {
            guard n >= 1, n <= 1_000_000 else {
                return .failure(Invalid(description: "\(from): count \(n) must be 1 or more"))
            }
            guard (0..<n).contains(i) else {
                return .failure(Invalid(description: "\(from): index \(i) is outside 0…\(n - 1)"))
            }
            return .success(Shard(index: i, count: n))
        }
        func number(_ name: String) -> Int? { environment[name].flatMap { Int($0.trimmingWhitespace()) } }
        if text != "auto" {
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
                return .failure(
                    Invalid(description: "--shard: \"\(text)\" is not INDEX/COUNT (for example 0/4) or auto"))
            }
            return shard(i, n, from: "--shard \(text)")
        }
        if let i = number("JOB_COMPLETION_INDEX") {
            guard let n = count else {
                return .failure(
                    Invalid(
                        description:
                            "--shard auto: JOB_COMPLETION_INDEX is set; give the Job's completions with --shard-count"))
            }
            return shard(i, n, from: "JOB_COMPLETION_INDEX")
        }
        if let id = number("SLURM_ARRAY_TASK_ID") {
            guard let n = number("SLURM_ARRAY_TASK_COUNT") ?? count else {
                return .failure(Invalid(description: "--shard auto: SLURM_ARRAY_TASK_COUNT is not set"))
            }
            return shard(id - (number("SLURM_ARRAY_TASK_MIN") ?? 0), n, from: "SLURM_ARRAY_TASK_ID")
        }
        if let seq = number("PARALLEL_SEQ") {
            guard let n = count else {
                return .failure(
                    Invalid(
                        description: "--shard auto: PARALLEL_SEQ is set; give the number of jobs with --shard-count"))
            }
            return shard(seq - 1, n, from: "PARALLEL_SEQ")
        }
        return .failure(
            Invalid(
                description:
                    "--shard auto: none of JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or PARALLEL_SEQ is set (give INDEX/COUNT)"
            ))
    }
}
