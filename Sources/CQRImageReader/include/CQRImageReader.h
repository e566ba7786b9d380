#ifndef OPENHEALTHKIT_CQRIMAGEREADER_H
#define OPENHEALTHKIT_CQRIMAGEREADER_H

#ifdef __cplusplus
extern "C" {
#endif

/// The largest image decoded: 16 megapixels (4,000 × 4,000), and no side over 10,000 pixels. A
/// card's QR code needs far less; a phone's photo (12 MP) fits.
#define OHK_QR_IMAGE_MAX_PIXELS 16000000LL
#define OHK_QR_IMAGE_MAX_SIDE 10000

/// Reads every QR code in an image file (PNG, JPEG, BMP, GIF…) with zxing-cpp.
/// Writes the decoded texts into `out`, separated by newlines and terminated by a NUL.
/// Returns the number of codes found (0 when none), -1 when the image cannot be read,
/// -2 when `capacity` is too small for the texts, -3 when the image's header claims more pixels
/// than the limits above (it is not decoded).
int ohk_read_qr_codes(const char *path, char *out, unsigned long capacity);

#ifdef __cplusplus
}
#endif

#endif
