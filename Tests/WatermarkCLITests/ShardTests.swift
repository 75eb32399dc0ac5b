import Testing

@testable import WatermarkCLI

@Suite struct ShardTests {
    @Test func shardsPartitionRowsAndStayPutWhenRowsAreAppended() throws {
        for count in 1...5 {
            let shards = (0..<count).map { Shard(index: $0, count: count) }
            for row in 0..<40 { #expect(shards.filter { $0.contains(row: row) }.count == 1) }
        }
        // Appending rows never moves an existing row.
        let s = Shard(index: 1, count: 3)
        let before = (0..<10).filter { s.contains(row: $0) }
        let after = (0..<25).filter { s.contains(row: $0) }
        #expect(Array(after.prefix(before.count)) == before)
    }

    @Test func shardFromTheJobEnginesEnvironment() throws {
        #expect(try Shard.parse("2/4", count: nil, environment: [:]).get() == Shard(index: 2, count: 4))
        // Kubernetes Indexed Job: the index from the environment, the count from the option.
        #expect(
            try Shard.parse("auto", count: 5, environment: ["JOB_COMPLETION_INDEX": "4"]).get()
                == Shard(index: 4, count: 5))
        // Slurm array 1-8: task 1 is shard 0.
        let slurm = ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "8"]
        #expect(try Shard.parse("auto", count: nil, environment: slurm).get() == Shard(index: 0, count: 8))
        #expect(
            try Shard.parse(
                "auto", count: nil, environment: ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"]
            ).get()
                == Shard(index: 3, count: 4))
        // GNU parallel counts jobs from 1.
        #expect(
            try Shard.parse("auto", count: 3, environment: ["PARALLEL_SEQ": "3"]).get() == Shard(index: 2, count: 3))
        for (text, count, env) in [
            ("4/4", nil, [:]), ("-1/2", nil, [:]), ("1/0", nil, [:]), ("x", nil, [:]), ("auto", nil, [:]),
            ("auto", nil, ["JOB_COMPLETION_INDEX": "0"]), ("auto", 2, ["JOB_COMPLETION_INDEX": "2"]),
            ("auto", nil, ["PARALLEL_SEQ": "1"]),
            ("auto", nil, ["SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "4"]),
        ] as [(String, Int?, [String: String])] {
            if case .success(let s) = Shard.parse(text, count: count, environment: env) {
                Issue.record("\(text) \(env) gave \(s)")
            }
        }
    }
}
