import CGStreamer
import Glibc
import Watermark
import WatermarkCLI
import WatermarkModel

func batchCommand(_ args: [String]) throws(UsageError) -> Int32 {
    let p = OptionParser(
        parameters: "[INPUT…]",
        summary: """
            Exports many files in one process: each INPUT (or each row of --manifest, a CSV \
            file with a header row or JSON Lines) becomes one output, with the export \
            options and overlay options of the command line and the row's own overrides \
            (any overlay option or layer field as a column, e.g. text). Placeholders \
            {filename}, {stem}, {ext}, {index} and any column as {column} fill output names \
            and texts. Each output is written under a temporary name and renamed when \
            complete, so a rerun skips finished files and resumes an interrupted batch; \
            --shard takes a part of the rows for one of several machines or job-array tasks.

            Examples:
              gst-watermark batch --image logo.png --output-dir out clips/*.mov
              gst-watermark batch --manifest students.csv --output "{stem}-{student_id}.mp4" --output-dir out
              gst-watermark batch --manifest m.csv --output-dir out --shard auto   (Slurm array, k8s, GNU parallel)
            """)
    addExportOptions(p)
    p.add("manifest", "m", .string, "CSV (header row) or JSON Lines: input, output and per-row overrides", arg: "FILE")
    p.add("output-dir", "o", .string, "Folder for outputs (created if missing); default names {stem}.mp4", arg: "DIR")
    p.add("output", nil, .string, "Output name with placeholders, e.g. \"{stem}-{index}.mp4\"", arg: "NAME")
    p.add("jobs", "j", .int, "Files exported at a time (default: \(BatchRun.defaultJobs()))", arg: "N")
    p.add("overwrite", nil, .flag, "Export again outputs that already exist (default: skip them)")
    p.add("fail-fast", nil, .flag, "Stop at the first file that fails (default: report it and go on)")
    p.add("report", nil, .string, "Write one JSON line per file as files finish", arg: "FILE.jsonl")
    p.add(
        "shard", nil, .string, "Take part INDEX of COUNT of the rows (0/4 … 3/4), or auto from the job engine",
        arg: "I/N")
    p.add("shard-count", nil, .int, "COUNT for --shard auto under Kubernetes or GNU parallel", arg: "N")
    let positional = try p.start(program: "gst-watermark batch", args)

    let manifest = p.string("manifest")
    if manifest != nil && !positional.isEmpty {
        throw UsageError(message: "give INPUT files or --manifest, not both")
    }
    if manifest == nil && positional.isEmpty {
        throw UsageError(message: "batch takes INPUT files or --manifest FILE (see --help)")
    }
    var shard: Shard?
    if let text = p.string("shard") {
        switch Shard.parse(text, count: p.int("shard-count")) {
        case .success(let s): shard = s
        case .failure(let e): throw UsageError(message: e.description)
        }
    }
    let jobs = p.int("jobs") ?? BatchRun.defaultJobs()
    guard (1...64).contains(jobs) else { throw UsageError(message: "--jobs: \(jobs) is out of range (1..64)") }
    if let dir = p.string("output-dir") { try makeDirectories(dir) }
    var settings = try ExportSettings(p)
    settings.encoderThreads = max(1, BatchRun.cores / jobs)
    let common = BatchPlan.Common(
        values: try OverlayOptions.values(from: p), config: p.string("config"),
        outputTemplate: p.string("output"), outputDir: p.string("output-dir"),
        variables: try OverlayOptions.variables(from: p), data: try OverlayOptions.data(from: p))
    let plan =
        if let manifest { try BatchPlan(manifest: manifest, common: common) } else {
            try BatchPlan(inputs: positional, common: common)
        }
    var items = plan.items
    if let shard { items = items.enumerated().filter { shard.contains(row: $0.offset) }.map(\.element) }
    if p.flag("print-pipeline") {
        for item in items {
            let job = try ExportJob(
                source: .file(item.input), output: item.output, overlay: item.overlay, settings: settings)
            printPipeline(try job.printableDescription)
        }
        return 0
    }
    var report: ReportFile?
    if let path = p.string("report") {
        report = ReportFile(path: path)
        if report == nil { throw UsageError(message: "--report: \(path): \(systemError())") }
    }
    let run = BatchRun(
        items: items, settings: settings, jobs: jobs, overwrite: p.flag("overwrite"), failFast: p.flag("fail-fast"),
        report: report)
    return run.execute(shard: shard)
}
