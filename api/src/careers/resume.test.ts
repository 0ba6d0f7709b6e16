import { expect } from 'chai';
import {
  compoundFile,
  elfExecutable,
  loopingCompoundFile,
  minimalDocx,
  minimalPdf,
  plainZip,
  zip64ClaimingDocx,
} from '../testing/documents.ts';
import { resumeKindOf } from './resume.ts';

describe('what a resume is, read from its content', () => {
  it('tells a PDF, a Word 97-2003 document and a Word document apart, and nothing else', async () => {
    expect(await resumeKindOf(minimalPdf())).to.equal('pdf');
    expect(await resumeKindOf(compoundFile())).to.equal('doc');
    expect(await resumeKindOf(minimalDocx())).to.equal('docx');
    expect(await resumeKindOf(compoundFile('Workbook'))).to.equal(null);
    expect(await resumeKindOf(plainZip())).to.equal(null);
    expect(await resumeKindOf(elfExecutable())).to.equal(null);
  });

  it('refuses Word files that would run code or carry other files when staff open them', async () => {
    expect(await resumeKindOf(compoundFile('WordDocument', ['Macros/VBA/dir']))).to.equal(null);
    expect(await resumeKindOf(compoundFile('WordDocument', ['ObjectPool/_1234/Ole']))).to.equal(null);
    for (const part of ['word/vbaProject.bin', 'word/activeX/activeX1.xml', 'word/embeddings/oleObject1.bin'])
      expect(await resumeKindOf(minimalDocx('Jane', [part])), part).to.equal(null);
  });

  it('follows no structure the file claims: a looping directory, a zip claiming billions of entries', async () => {
    // Each used to hold the event loop (the first until the heap ran out): now each is a scan of its bytes.
    expect(await resumeKindOf(loopingCompoundFile())).to.equal('doc');
    const claimed = zip64ClaimingDocx(0xffffffff);
    expect(await resumeKindOf(claimed)).to.be.oneOf(['docx', null]);
  });
});
