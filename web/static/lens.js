// The calibration's lens (vision/lens.py, OpenCV's radial-tangential model) in the browser: the
// correction editor draws and clicks on the photo as taken, whose pixels the lens bent, while the
// scan's homography belongs to the undistorted image. f = the image width, centre ((w-1)/2, (h-1)/2),
// the undistorted image's focal length f * scale.
"use strict";
window.beachscoreLens = (function () {
  function bend(L, x, y) {  // normalised ideal → normalised distorted
    const r2 = x * x + y * y, radial = 1 + L.k1 * r2 + L.k2 * r2 * r2;
    return [x * radial + 2 * L.p1 * x * y + L.p2 * (r2 + 2 * x * x),
            y * radial + L.p1 * (r2 + 2 * y * y) + 2 * L.p2 * x * y];
  }
  // Undistorted-image px → photo px, for an image w × h px of this camera mode.
  function distort(L, w, h, u, v) {
    const f = w, fi = w * (L.scale || 1), cx = (w - 1) / 2, cy = (h - 1) / 2;
    const [xd, yd] = bend(L, (u - cx) / fi, (v - cy) / fi);
    return [xd * f + cx, yd * f + cy];
  }
  // Photo px → undistorted-image px: the model's inverse by fixed-point iteration (as cv2.undistortPoints).
  function undistort(L, w, h, u, v) {
    const f = w, fi = w * (L.scale || 1), cx = (w - 1) / 2, cy = (h - 1) / 2;
    const xd = (u - cx) / f, yd = (v - cy) / f;
    let x = xd, y = yd;
    for (let i = 0; i < 40; i++) {
      const [bx, by] = bend(L, x, y);
      x += xd - bx; y += yd - by;
    }
    return [x * fi + cx, y * fi + cy];
  }
  return { distort, undistort };
})();
