import CGStreamer
import CShim
import Glibc
import GstTestSupport
import Testing

/// Where there is no NVIDIA driver, the element offers system memory only, as it did before it
/// learnt CUDA memory: the CUDA caps of its templates are dropped when caps are asked for.
@Suite struct CudaCapsTests {
    static let noDriver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) == nil

    @Test(.enabled(if: noDriver, "an NVIDIA driver is installed here"))
    func withoutTheDriverOnlySystemMemoryIsAccepted() throws {
        #expect(GstTest.ready)
        let element = try #require(gst_element_factory_make("watermark", nil))
        defer { gst_object_unref(UnsafeMutableRawPointer(element)) }
        let sink = try #require(gst_element_get_static_pad(element, "sink"))
        defer { gst_object_unref(UnsafeMutableRawPointer(sink)) }
        let size = "width=320,height=240,framerate=30/1"
        let cuda = try #require(gst_caps_from_string("video/x-raw(memory:CUDAMemory),format=NV12,\(size)"))
        let system = try #require(gst_caps_from_string("video/x-raw,format=NV12,\(size)"))
        defer {
            gst_caps_unref(cuda)
            gst_caps_unref(system)
        }
        #expect(gst_pad_query_accept_caps(sink, system) != 0)
        #expect(gst_pad_query_accept_caps(sink, cuda) == 0)
        // What the sink pad offers: every structure in system memory (or ANY), none in CUDA.
        let offered = try #require(gst_pad_query_caps(sink, nil))
        defer { gst_caps_unref(offered) }
        #expect(gst_caps_get_size(offered) > 0)
        let printed = try #require(gst_caps_to_string(offered))
        defer { g_free(printed) }
        let text = String(cString: printed)
        #expect(!text.contains("CUDAMemory"), "\(text)")
    }
}
