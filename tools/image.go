package tools

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"github.com/pi-rpc/pi-rpc/core"
)

// maxImageSide is pi's auto-resize bound; maxImageBytes keeps an image under the 5 MB that
// the strictest providers accept.
const (
	maxImageSide  = 2000
	maxImageBytes = 4.5 * 1024 * 1024
)

// sniffImage detects the four image formats models accept by their magic bytes, not the
// file name: a PNG called notes.txt is an image, a text file called logo.png is text.
func sniffImage(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "image/gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

func (e *env) readImage(data []byte, mime string) (core.ToolResult, error) {
	note := ""
	if !e.opts.NoImageResize {
		if out, outMime, hint, ok := resizeImage(data, mime); ok {
			data, mime, note = out, outMime, hint
		}
	}
	text := fmt.Sprintf("Read image file [%s]", mime)
	if note != "" {
		text += "\n" + note
	}
	return core.ToolResult{Content: []core.Content{
		core.TextBlock(text),
		core.ImageBlock(base64.StdEncoding.EncodeToString(data), mime),
	}}, nil
}

// resizeImage shrinks an image larger than 2000x2000 to fit, re-encoding it as the smaller
// of PNG and JPEG, and returns pi's dimension note so the model can map coordinates back.
// ok is false when the image is already small enough or cannot be decoded (it is then sent
// as it is).
func resizeImage(data []byte, mime string) (out []byte, outMime, note string, ok bool) {
	cfg, _, err := decodeConfig(data, mime)
	if err != nil || (cfg.Width <= maxImageSide && cfg.Height <= maxImageSide && len(data) <= maxImageBytes) {
		return nil, "", "", false
	}
	src, err := decodeImage(data, mime)
	if err != nil {
		return nil, "", "", false
	}
	w, h := cfg.Width, cfg.Height
	if w > maxImageSide {
		h = int(float64(h)*maxImageSide/float64(w) + 0.5)
		w = maxImageSide
	}
	if h > maxImageSide {
		w = int(float64(w)*maxImageSide/float64(h) + 0.5)
		h = maxImageSide
	}
	for _, scale := range []float64{1, 0.75, 0.5, 0.35, 0.25} {
		tw, th := max(1, int(float64(w)*scale+0.5)), max(1, int(float64(h)*scale+0.5))
		dst := image.NewRGBA(image.Rect(0, 0, tw, th))
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
		var pngBuf, jpgBuf bytes.Buffer
		if err := png.Encode(&pngBuf, dst); err != nil {
			return nil, "", "", false
		}
		if err := jpeg.Encode(&jpgBuf, dst, &jpeg.Options{Quality: 80}); err != nil {
			return nil, "", "", false
		}
		out, outMime = pngBuf.Bytes(), "image/png"
		if jpgBuf.Len() < pngBuf.Len() {
			out, outMime = jpgBuf.Bytes(), "image/jpeg"
		}
		if len(out) <= maxImageBytes {
			note = fmt.Sprintf("[Image: original %dx%d, displayed at %dx%d. Multiply coordinates by %.2f to map to original image.]",
				cfg.Width, cfg.Height, tw, th, float64(cfg.Width)/float64(tw))
			return out, outMime, note, true
		}
	}
	return nil, "", "", false
}

func decodeConfig(data []byte, mime string) (image.Config, string, error) {
	r := bytes.NewReader(data)
	switch mime {
	case "image/png":
		c, err := png.DecodeConfig(r)
		return c, "png", err
	case "image/jpeg":
		c, err := jpeg.DecodeConfig(r)
		return c, "jpeg", err
	case "image/gif":
		c, err := gif.DecodeConfig(r)
		return c, "gif", err
	default:
		c, err := webp.DecodeConfig(r)
		return c, "webp", err
	}
}

func decodeImage(data []byte, mime string) (image.Image, error) {
	r := bytes.NewReader(data)
	switch mime {
	case "image/png":
		return png.Decode(r)
	case "image/jpeg":
		return jpeg.Decode(r)
	case "image/gif":
		return gif.Decode(r)
	default:
		return webp.Decode(r)
	}
}
