import { describe, expect, it } from 'vitest';
import { filler, loadedFiles, writeRepo } from './fixture-repo.js';

// A Go package of image resources (issue 40, switch `go-file-names`): "image", "cache", "decode" and "WebP" are the
// package's everyday words, repeated most by the codec and the file cache; the file whose name the title spells,
// `image_cache.go`, says each of them once or twice. Fails with NAVKERNEL_ABLATE=go-file-names.
const REPO = {
  'go.mod': 'module example.com/gallery\n\ngo 1.22\n',
  'resources/image.go':
    'package resources\n\nimport "example.com/gallery/images"\n\n// Image is an image resource: its decoded image, its config and its WebP or PNG encoding.\ntype Image struct {\n\tcfg images.ImageConfig\n}\n\n// DecodeConfig decodes the image config of the image (WebP, PNG, JPEG images).\nfunc (i *Image) DecodeConfig() (images.ImageConfig, error) {\n\treturn images.DecodeImageConfig(i.cfg.Format)\n}\n',
  'resources/image_cache.go':
    'package resources\n\n// imageCache keeps processed resources between builds.\ntype imageCache struct {\n\tentries map[string]*Image\n}\n\n// getOrCreate returns the entry of a key, reading it back from disk when it is stored there.\nfunc (c *imageCache) getOrCreate(key string, create func() (*Image, error)) (*Image, error) {\n\tif e, ok := c.entries[key]; ok {\n\t\treturn e, nil\n\t}\n\treturn create()\n}\n',
  'images/codec.go':
    'package images\n\n// Codec decodes and encodes images: WebP images, PNG images and JPEG images.\ntype Codec struct{}\n\n// DecodeWebP decodes a WebP image; a WebP image from the cache is decoded like any WebP image.\nfunc (c Codec) DecodeWebP(b []byte) (Image, error) {\n\treturn decodeImage("webp", b)\n}\n\n// DecodeImage decodes an image (WebP, PNG, JPEG) and its image config.\nfunc (c Codec) DecodeImage(format string, b []byte) (Image, error) {\n\treturn decodeImage(format, b)\n}\n',
  'images/config.go':
    'package images\n\n// ImageConfig is the decoded config of an image: WebP, PNG or JPEG images.\ntype ImageConfig struct {\n\tFormat string\n\tWidth, Height int\n}\n\n// DecodeImageConfig decodes the image config of WebP images and the other images.\nfunc DecodeImageConfig(format string) (ImageConfig, error) {\n\treturn ImageConfig{Format: format}, nil\n}\n',
  'images/image.go': 'package images\n\n// Image is a decoded image.\ntype Image struct{ Format string }\n\nfunc decodeImage(format string, b []byte) (Image, error) { return Image{Format: format}, nil }\n',
  'filecache/filecache.go':
    'package filecache\n\n// Cache is a file cache: images, WebP images and their decoded config are stored in the file cache.\ntype Cache struct{ dir string }\n\n// GetOrCreate reads a file from the file cache or creates it; the file cache keeps images and WebP images.\nfunc (c *Cache) GetOrCreate(key string) ([]byte, error) {\n\treturn nil, nil\n}\n',
  'filecache/config.go':
    'package filecache\n\n// Config is the file cache config: where the file cache keeps images and how long a cache entry lives.\ntype Config struct {\n\tDir    string\n\tMaxAge int\n}\n',
  ...filler('tpl/images', 'go', 8, (i) => `package images\n\n// Func${i} is a template function on images: it decodes an image and reads its config from the file cache.\nfunc Func${i}(image string) string {\n\treturn image\n}\n`),
};

describe('a Go file whose name the title spells (the go-file-names resolver)', () => {
  it('finds image_cache.go for a title saying "image" and "cache" among the package\'s everyday words', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, 'Fix image DecodeConfig regression of WebP images from file cache');
    expect(files.slice(0, 3)).toContain('resources/image_cache.go');
  });

  it('credits no file when the title spells only one word of its name', async () => {
    const root = writeRepo(REPO);
    const { files } = await loadedFiles(root, 'Fix image DecodeConfig regression of WebP images');
    expect(files.slice(0, 3)).not.toContain('resources/image_cache.go');
  });
});
