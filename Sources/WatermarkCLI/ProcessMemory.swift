import CMallocTuning
import Glibc

/// The process's heap, set up first thing, before GStreamer or anything else starts a thread.
package enum ProcessMemory {
    /// One malloc arena. A pipeline's threads (decoder, encoder, queues, muxer) would each
    /// get an arena of their own, and every arena keeps the frame-sized blocks freed in it.
    /// The limit only holds back arenas made after it is set: `export`, `capture` and
    /// `batch` set it again when they run, but by then gst_init and the registry have started
    /// threads; set here, the 1080p export peaks 10–15 MB lower (Benchmarks/README.md,
    /// "Exporting a file"). `MALLOC_ARENA_MAX` in the environment still wins.
    package static func limitArenas() {
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        wm_limit_malloc_arenas(1)
    }
}
