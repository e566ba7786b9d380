#ifndef OPENHEALTHKIT_CQRIMAGEREADER_H
#define OPENHEALTHKIT_CQRIMAGEREADER_H

#ifdef __cplusplus
extern "C" {
#endif

/// Reads every QR code in an image file (PNG, JPEG, BMP, GIF…) with zxing-cpp.
/// Writes the decoded texts into `out`, separated by newlines and terminated by a NUL.
/// Returns the number of codes found (0 when none), -1 when the image cannot be read,
/// -2 when `capacity` is too small for the texts.
int ohk_read_qr_codes(const char *path, char *out, unsigned long capacity);

#ifdef __cplusplus
}
#endif

#endif
