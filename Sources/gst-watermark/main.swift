import CGStreamer
import CShim

gst_init(nil, nil)
_ = gst_watermark_register_static()
print("gst-watermark")
