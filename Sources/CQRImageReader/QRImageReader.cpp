// A C interface over zxing-cpp (Debian's libzxing-dev) and stb_image (libstb-dev), so the Swift
// modules read QR images without Swift's C++ interoperability mode, which would spread to every
// module that imports this one.
#define ZX_USE_UTF8 1
#include "CQRImageReader.h"

#include <ZXing/ReadBarcode.h>
#include <stb/stb_image.h>

#include <cstring>
#include <memory>
#include <string>

int ohk_read_qr_codes(const char *path, char *out, unsigned long capacity) {
    if (path == nullptr || out == nullptr || capacity == 0) return -1;
    int width = 0, height = 0, channels = 0;
    // Read the dimensions from the header before decoding: a small file can claim a huge image
    // (an image bomb), and decoding would allocate all of it.
    if (!stbi_info(path, &width, &height, &channels)) return -1;
    if (width <= 0 || height <= 0 || width > OHK_QR_IMAGE_MAX_SIDE || height > OHK_QR_IMAGE_MAX_SIDE
        || (long long)width * (long long)height > OHK_QR_IMAGE_MAX_PIXELS) {
        return -3;
    }
    std::unique_ptr<stbi_uc, void (*)(void *)> pixels(stbi_load(path, &width, &height, &channels, 1), stbi_image_free);
    if (!pixels || width <= 0 || height <= 0) return -1;

    ZXing::DecodeHints hints;
    hints.setFormats(ZXing::BarcodeFormat::QRCode);
    hints.setTryHarder(true);
    ZXing::ImageView image(pixels.get(), width, height, ZXing::ImageFormat::Lum);
    auto results = ZXing::ReadBarcodes(image, hints);

    std::string joined;
    int count = 0;
    for (const auto &result : results) {
        if (!result.isValid()) continue;
        if (count > 0) joined.push_back('\n');
        joined += result.text();
        count += 1;
    }
    if (joined.size() + 1 > capacity) return -2;
    std::memcpy(out, joined.c_str(), joined.size() + 1);
    return count;
}
