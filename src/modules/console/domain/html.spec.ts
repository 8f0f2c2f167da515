import { html, jsonBlock, SafeHtml } from './html';

describe('html', () => {
  it('escapes every interpolated string, keeps nested SafeHtml', () => {
    const name = `<script>alert("x")</script>&'`;
    const out = html`<p title="${name}">${name}${html`<b>ok</b>`}</p>`.text;
    expect(out).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;<b>ok</b></p>',
    );
  });

  it('joins arrays and drops null, undefined and false', () => {
    expect(html`${['<a>', html`<i></i>`, null, undefined, false, 3]}`.text).toBe('&lt;a&gt;<i></i>3');
  });

  it('keeps JSON in a script block from closing it', () => {
    const block = jsonBlock({ v: '</script><img src=x>' });
    expect(block).toBeInstanceOf(SafeHtml);
    expect(block.text).not.toContain('<');
    expect(JSON.parse(block.text)).toEqual({ v: '</script><img src=x>' });
  });
});
