// Encodes the page's pictures as PNG (views/share.js encodePng) off the page's
// thread. The page's own canvas.toBlob waits for the main thread's idle time,
// which in Chromium came a second after the click on "PNG" (six seconds once),
// past the click's user activation: the download could then be blocked.
self.onmessage = async ({ data: { bitmap } }) => {
  try {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    canvas.getContext('2d').drawImage(bitmap, 0, 0);
    bitmap.close();
    self.postMessage({ blob: await canvas.convertToBlob({ type: 'image/png' }) });
  } catch (error) {
    self.postMessage({ error: String(error) });
  }
};
